import { escapeHtml, htmlPage } from '../common/html';

export interface ConsentPage {
  applicationName: string;
  username: string;
  scope: string;
  csrfToken: string;
  /** Where the decision is posted: the authorization endpoint, or the device page. */
  action: '/api/o/authorize/' | '/api/o/device/';
  /** The request being decided, posted back unchanged with the decision. */
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
  return htmlPage(
    `Authorize ${p.applicationName}`,
    `<main class="consent"><h1>Authorize ${escapeHtml(p.applicationName)}?</h1>
<p>The application <strong>${escapeHtml(p.applicationName)}</strong> asks for ${access} access (scope <code>${escapeHtml(p.scope)}</code>)
to the API as <strong>${escapeHtml(p.username)}</strong>.</p>
<form method="post" action="${p.action}">
  <input type="hidden" name="csrfmiddlewaretoken" value="${escapeHtml(p.csrfToken)}">
${hidden}
  <button type="submit" name="decision" value="authorize">Authorize</button>
  <button type="submit" name="decision" value="deny">Deny</button>
</form></main>`,
  );
}

/** Shown instead of redirecting when the client or the redirect URI cannot be trusted. */
export function renderAuthorizationErrorPage(error: string, description: string): string {
  return htmlPage(
    'Authorization error',
    `<main class="consent"><h1>Authorization error</h1>
<p role="alert"><code>${escapeHtml(error)}</code>: ${escapeHtml(description)}</p></main>`,
  );
}
