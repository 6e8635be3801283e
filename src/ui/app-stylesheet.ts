/**
 * `/static/app.css`, the one stylesheet of the browser pages. It lives in a TypeScript string so
 * that `tsc` alone carries it into `dist/` (the Docker image ships only `dist/`): no copy step, no
 * bundler. Light, system fonts, visible keyboard focus, contrast of at least 4.5:1 for text.
 */
export const APP_STYLESHEET = `
:root {
  --ink: #1b1f24;
  --muted: #57606a;
  --line: #d0d7de;
  --paper: #ffffff;
  --wash: #f6f8fa;
  --accent: #0b5cad;
  --accent-ink: #ffffff;
  --danger: #a40e26;
  --danger-wash: #fff1f0;
  --warn-wash: #fff8e1;
  --ok: #1a7f37;
  --radius: 6px;
  color-scheme: light;
}
* { box-sizing: border-box; }
html { font-size: 100%; }
body {
  margin: 0;
  background: var(--wash);
  color: var(--ink);
  font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", Roboto, sans-serif;
}
h1, h2 { line-height: 1.25; margin: 0 0 .5rem; }
h1 { font-size: 1.5rem; }
h2 { font-size: 1.15rem; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
[hidden] { display: none !important; }
.visually-hidden {
  position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}

/* Controls */
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
input[type=text], input[type=password], select {
  width: 100%; min-height: 2.6rem; padding: .5rem .6rem; font: inherit; color: inherit;
  background: var(--paper); border: 1px solid #8c959f; border-radius: var(--radius);
}
input[readonly] { background: var(--wash); font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
button, .button {
  display: inline-block; padding: .5rem 1rem; font: inherit; font-weight: 600; line-height: 1.4;
  color: var(--accent-ink); background: var(--accent); border: 1px solid var(--accent);
  border-radius: var(--radius); cursor: pointer; text-decoration: none; text-align: center;
}
button:hover, .button:hover { background: #084a8c; }
button.secondary, .button.secondary { color: var(--accent); background: var(--paper); }
button.secondary:hover, .button.secondary:hover { background: #eef4fb; }
button.danger { color: var(--danger); background: var(--paper); border-color: #d8a1a9; padding: .25rem .75rem; }
button.danger:hover { background: var(--danger-wash); }
button:disabled { opacity: .6; cursor: default; }

/* Messages */
.alert, .notice {
  margin: 0 0 1rem; padding: .75rem 1rem; border-radius: var(--radius);
  background: var(--danger-wash); color: var(--danger); border-left: 4px solid var(--danger);
}
.alert:empty, .notice:empty, .status:empty { display: none; }
.notice { display: flex; flex-wrap: wrap; gap: .75rem 1.5rem; align-items: center; justify-content: space-between; }
.notice p { margin: 0; font-weight: 600; }
.status { margin: .5rem 0; color: var(--ok); font-weight: 600; }
.status.error { color: var(--danger); }
.hint { color: var(--muted); margin: 0 0 1rem; }
.empty { color: var(--muted); font-style: italic; }

/* Login, and the OAuth 2 pages (consent, device code) on the same card */
.login, .consent {
  max-width: 24rem; margin: 10vh auto 2rem; padding: 2rem;
  background: var(--paper); border: 1px solid var(--line); border-radius: 10px;
  box-shadow: 0 1px 3px rgba(27, 31, 36, .08);
}
.login h1, .consent h1 { text-align: center; margin-bottom: 1.25rem; }
.consent form { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; }
.consent form label, .consent form input[type=text] { flex: 1 1 100%; }
.login form button { width: 100%; margin-top: 1.25rem; }
.sso { margin-top: 1.5rem; border-top: 1px solid var(--line); padding-top: 1rem; }
.sso h2 { font-size: 1rem; color: var(--muted); text-align: center; }
.sso ul { list-style: none; margin: 0; padding: 0; display: grid; gap: .5rem; }
.sso .button { display: block; color: var(--accent); background: var(--paper); }
.sso .button[aria-disabled=true] { opacity: .6; cursor: default; }
/* SPEC §22: the notice as typed, line breaks kept; the logo above the title; the click-through's box */
.login-logo { display: block; max-width: 100%; max-height: 6rem; margin: 0 auto 1rem; }
.login-notice { margin: 0 0 1rem; padding: .75rem 1rem; border: 1px solid var(--line); border-radius: var(--radius); max-height: 40vh; overflow: auto; }
.login-notice p { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.login-consent { display: flex; gap: .5rem; align-items: center; margin: 0 0 .75rem; }
.login-consent label { margin: 0; }

/* Profile */
.topbar {
  display: flex; align-items: center; justify-content: space-between; gap: 1rem;
  padding: .6rem 1.5rem; background: var(--paper); border-bottom: 1px solid var(--line);
}
.brand { font-weight: 700; color: var(--ink); text-decoration: none; }
.topbar form { margin: 0; }
.page { max-width: 64rem; margin: 1.5rem auto; padding: 0 1.5rem; }
.page > .notice { margin-top: 0; }
main[inert] { opacity: .45; }
.identity {
  display: flex; flex-wrap: wrap; gap: .5rem 2rem; align-items: baseline;
  padding: 1.25rem 1.5rem; margin-bottom: 1.5rem;
  background: var(--paper); border: 1px solid var(--line); border-radius: 10px;
}
.identity dl { display: flex; flex-wrap: wrap; gap: .25rem 1.5rem; margin: 0; }
.identity dl div { display: flex; gap: .4rem; }
.identity dt { color: var(--muted); }
.identity dd { margin: 0; font-weight: 600; }
.badge {
  display: inline-block; margin-left: .4rem; padding: 0 .5rem; font-size: .8rem; font-weight: 700;
  color: var(--ok); background: #dafbe1; border: 1px solid #9be9a8; border-radius: 999px; vertical-align: middle;
}
.badge.warn { color: #7a4d00; background: var(--warn-wash); border-color: #e3c96b; }
td.actions button.secondary { padding: .25rem .75rem; }
td.actions button + button { margin-left: .4rem; }
[role=tablist] { display: flex; gap: .25rem; border-bottom: 1px solid var(--line); }
[role=tab] {
  color: var(--muted); background: transparent; border: 1px solid transparent; border-bottom: 0;
  border-radius: var(--radius) var(--radius) 0 0; margin-bottom: -1px; padding: .55rem 1.25rem;
}
[role=tab]:hover { color: var(--ink); background: #eaeef2; }
[role=tab][aria-selected=true] { color: var(--ink); background: var(--paper); border-color: var(--line); }
[role=tabpanel] {
  padding: 1.5rem; background: var(--paper);
  border: 1px solid var(--line); border-top: 0; border-radius: 0 0 10px 10px;
}
.inline-form { display: flex; flex-wrap: wrap; gap: 0 1rem; align-items: flex-end; margin-bottom: 1rem; }
.inline-form .field { flex: 1 1 14rem; }
.inline-form .field.narrow { flex: 0 1 8rem; }
.inline-form button { margin-top: .75rem; }
.recovery-codes { columns: 2; font-size: 1.05rem; }
img.qr { display: block; margin: .5rem 0; image-rendering: pixelated; }
.new-token { margin: 0 0 1.5rem; padding: 1rem; background: var(--warn-wash); border: 1px solid #e3c96b; border-radius: var(--radius); }
.new-token label { margin-top: 0; }
.new-token p { margin: 0 0 .5rem; }
.copy-row { display: flex; gap: .5rem; }
table { width: 100%; border-collapse: collapse; margin-top: .5rem; font-size: .95rem; }
caption { text-align: left; font-weight: 700; padding: .25rem 0 .5rem; }
th, td { text-align: left; padding: .5rem .6rem; border-bottom: 1px solid var(--line); vertical-align: middle; }
thead th { background: var(--wash); font-size: .85rem; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; }
tbody tr:hover { background: #fafbfc; }
td.actions { text-align: right; white-space: nowrap; }
td time { white-space: nowrap; }
.agent { display: block; font-size: .8rem; color: var(--muted); max-width: 28rem; overflow-wrap: anywhere; }
.toolbar { display: flex; justify-content: flex-end; margin-top: 1rem; }

/* Idle warning */
dialog {
  max-width: 26rem; padding: 1.5rem; color: var(--ink); background: var(--paper);
  border: 1px solid var(--line); border-radius: 10px; box-shadow: 0 8px 24px rgba(27, 31, 36, .25);
}
dialog::backdrop { background: rgba(27, 31, 36, .45); }
dialog .actions { display: flex; gap: .75rem; justify-content: flex-end; margin-top: 1.25rem; }
@media (max-width: 40rem) {
  .agent { max-width: 12rem; }
  th, td { padding: .4rem .3rem; }
}
`;

/** `/static/icon.svg`: saves browsers a 404 for /favicon.ico. */
export const APP_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b5cad"/><path d="M9 22l7-13 7 13h-4l-3-6-3 6z" fill="#fff"/></svg>
`;
