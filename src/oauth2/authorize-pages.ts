/** HTML-escapes text for element content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export interface ConsentPage {
  applicationName: string;
  username: string;
  scope: string;
  csrfToken: string;
  /** The authorization request, posted back unchanged with the decision. */
  parameters: Record<string, string>;
}

/**
 * The consent page: a POST form (consent is never granted by GET) protected by the CSRF token, with
 * the buttons `Authorize` and `Deny`. Framing is refused by the global X-Frame-Options/CSP headers.
 */
export function renderConsentPage(p: ConsentPage): string {
  const access = p.scope.split(' ').includes('write') ? 'read and write' : 'read-only';
  const hidden = Object.entries(p.parameters)
    .map(([name, value]) => `  <input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
  return page(
    `Authorize ${p.applicationName}`,
    `<h1>Authorize ${escapeHtml(p.applicationName)}?</h1>
<p>The application <strong>${escapeHtml(p.applicationName)}</strong> asks for ${access} access (scope <code>${escapeHtml(p.scope)}</code>)
to the API as <strong>${escapeHtml(p.username)}</strong>.</p>
<form method="post" action="/api/o/authorize/">
  <input type="hidden" name="csrfmiddlewaretoken" value="${escapeHtml(p.csrfToken)}">
${hidden}
  <button type="submit" name="decision" value="authorize">Authorize</button>
  <button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

/** Shown instead of redirecting when the client or the redirect URI cannot be trusted. */
export function renderAuthorizationErrorPage(error: string, description: string): string {
  return page(
    'Authorization error',
    `<h1>Authorization error</h1>
<p role="alert"><code>${escapeHtml(error)}</code>: ${escapeHtml(description)}</p>`,
  );
}
