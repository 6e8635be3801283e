import { escapeHtml, htmlPage } from '../common/html';

interface StepPage {
  csrfToken: string;
  /** A failed attempt's message, in the role="alert" element. */
  message?: string;
}

export interface VerifyPage extends StepPage {
  /** The WebAuthn request options when the user has a security key (the button appears only then). */
  keyOptions?: unknown;
}

export interface SetupPage extends StepPage {
  secret: string;
  /** A PNG data URL of the otpauth:// URL, made on the server (the CSP allows data: images). */
  qrDataUrl: string;
}

const alert = (message?: string) => (message ? `<div class="alert" role="alert">${escapeHtml(message)}</div>` : '');
const csrf = (token: string) => `<input type="hidden" name="csrfmiddlewaretoken" value="${escapeHtml(token)}">`;
const codeField =
  '<label for="code">Authentication code</label>' +
  '<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="64" autofocus>';

/**
 * The second step of SPEC §16: a code of the authenticator app or a recovery code, or the security key.
 * The key's button fills the hidden `credential` field through /static/second-step.js and submits the form.
 */
export function renderVerifyPage(page: VerifyPage): string {
  const key = page.keyOptions
    ? `<input type="hidden" name="credential" id="credential" value="">` +
      `<button type="button" id="use-security-key" data-options="${escapeHtml(JSON.stringify(page.keyOptions))}">Use a security key</button>`
    : '';
  const body =
    '<main class="login"><h1>Two-step verification</h1>' +
    alert(page.message) +
    '<p>Enter the code from your authenticator app, or one of your recovery codes.</p>' +
    '<form method="post" action="/api/login/mfa/" id="second-step">' +
    csrf(page.csrfToken) +
    codeField +
    '<button type="submit">Verify</button>' +
    key +
    '</form></main>';
  return htmlPage('Two-step verification · Automation Service', body, { scripts: page.keyOptions ? ['/static/webauthn.js', '/static/second-step.js'] : [] });
}

/** The forced set-up of MFA_REQUIRED_FOR: the QR code, the secret as text, and the first code to confirm it. */
export function renderSetupPage(page: SetupPage): string {
  const body =
    '<main class="login"><h1>Set up two-step verification</h1>' +
    alert(page.message) +
    '<p>Your account needs a second step at every login. Scan this code with an authenticator app, then enter the code it shows.</p>' +
    `<img class="qr" src="${escapeHtml(page.qrDataUrl)}" alt="QR code for your authenticator app: scan it, or type the secret below" width="200" height="200">` +
    `<p>Secret: <code id="totp-secret">${escapeHtml(page.secret)}</code></p>` +
    '<form method="post" action="/api/login/mfa/setup/">' +
    csrf(page.csrfToken) +
    codeField +
    '<button type="submit">Confirm</button>' +
    '</form></main>';
  return htmlPage('Set up two-step verification · Automation Service', body);
}

/** The recovery codes, shown once when the forced set-up completes; the login is already done. */
export function renderRecoveryCodesPage(codes: string[], next: string): string {
  const body =
    '<main class="login"><h1>Save your recovery codes</h1>' +
    '<p>Each code lets you in once if you lose your authenticator app. They are shown only now: keep them somewhere safe.</p>' +
    `<ul class="recovery-codes" aria-label="Recovery codes">${codes.map((c) => `<li><code>${escapeHtml(c)}</code></li>`).join('')}</ul>` +
    `<a class="button" href="${escapeHtml(next)}">Continue</a>` +
    '</main>';
  return htmlPage('Recovery codes · Automation Service', body);
}
