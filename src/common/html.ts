/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A page shell: no inline script or style, so the Content-Security-Policy stays strict. */
export function htmlPage(title: string, body: string, opts: { scripts?: string[] } = {}): string {
  const scripts = (opts.scripts ?? []).map((src) => `<script src="${escapeHtml(src)}" defer></script>`).join('');
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title><link rel="icon" href="/static/icon.svg" type="image/svg+xml"><link rel="stylesheet" href="/static/app.css">${scripts}</head>` +
    `<body>${body}</body></html>`
  );
}
