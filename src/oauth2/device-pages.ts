import { escapeHtml, htmlPage } from '../common/html';

export interface DeviceCodePage {
  csrfToken: string;
  /** What the field holds: `?user_code=` of verification_uri_complete, or what was typed before. */
  userCode: string;
  /** Why the code typed before was not taken; shown in the role="alert" element. */
  message?: string;
}

/**
 * The first page of the device flow (SPEC §15): a field labelled `Code` and a button `Continue`, posted
 * with the CSRF token like every form here (the consent page follows, then `Device connected`).
 */
export function renderDeviceCodePage(p: DeviceCodePage): string {
  const alert = p.message ? `<div class="alert" role="alert">${escapeHtml(p.message)}</div>` : '';
  return htmlPage(
    'Connect a device',
    `<main class="consent"><h1>Connect a device</h1>
${alert}<p>Enter the code your device shows.</p>
<form method="post" action="/api/o/device/">
  <input type="hidden" name="csrfmiddlewaretoken" value="${escapeHtml(p.csrfToken)}">
  <label for="user_code">Code</label>
  <input id="user_code" name="user_code" type="text" value="${escapeHtml(p.userCode)}" maxlength="64" autocomplete="off" autocapitalize="characters" spellcheck="false" autofocus required>
  <button type="submit">Continue</button>
</form></main>`,
  );
}

/** The last page: the device is connected, or it was refused access. */
export function renderDeviceResultPage(p: { approved: boolean; applicationName: string }): string {
  const name = escapeHtml(p.applicationName);
  return p.approved
    ? htmlPage('Device connected', `<main class="consent"><h1>Device connected</h1>
<p role="status"><strong>${name}</strong> now has access. You can return to your device.</p></main>`)
    : htmlPage('Access denied', `<main class="consent"><h1>Access denied</h1>
<p role="status"><strong>${name}</strong> was not given access. You can close this page.</p></main>`);
}
