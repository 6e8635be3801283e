import { escapeHtml, htmlPage } from '../common/html';
import type { User } from '../users/user.entity';

export interface ProfilePageModel {
  user: User;
  /** How the user logs in (the login method's own words: a local password, a directory with its entry…). */
  account: string;
  csrfToken: string;
  /** False when OAuth 2 is disabled, or for external users without ALLOW_OAUTH2_FOR_EXTERNAL_USERS. */
  showTokens: boolean;
  /** Seconds before the session's idle timeout (its `Session-Timeout`); absent without a session. */
  sessionTimeout?: number;
  /** TOKEN_EXPIRY_WARNING_SECONDS: tokens expiring within it are marked `Expires soon` (SPEC §15). */
  tokenExpiryWarning: number;
  /** The server's time as the page is rendered: profile.js measures expiry against it, not the browser's clock. */
  now: Date;
  /** Users whose login method proves a password manage their second factors here (SPEC §16); SSO users verify at their provider. */
  showSecurity: boolean;
  /** SPEC §22 (AC-9), for a session's visit: the login before this session's, and the failed attempts since. */
  previousLogin?: { at: string; address: string | null } | null;
  failedSincePrevious?: number;
}

/** SPEC §22's notice: the previous login's time (as the API gives it) and address, and the failures since. */
function previousLoginNotice(model: ProfilePageModel): string {
  if (model.previousLogin === undefined) return '';
  const previous = model.previousLogin;
  const said = previous ? `Previous login: ${previous.at}${previous.address ? ` from ${previous.address}` : ''}.` : 'This is your first login.';
  const failed = model.failedSincePrevious ?? 0;
  return `<p id="previous-login" class="status" role="status">${escapeHtml(said)} ${failed} failed login attempts since then.</p>`;
}

/**
 * `/accounts/profile/` (SPEC §13): who you are, the Tokens and Sessions tabs, `Log out`, the live
 * notice (`#session-notice`, role alert) and the idle warning (role alertdialog). The page is the
 * frame; `profile.js` fills the tables from the API and `session-monitor.js` watches the session.
 */
export function renderProfilePage(model: ProfilePageModel): string {
  const tabs = [
    ...(model.showTokens ? [{ id: 'tokens', label: 'Tokens', panel: tokensPanel() }] : []),
    { id: 'sessions', label: 'Sessions', panel: sessionsPanel() },
    ...(model.showSecurity ? [{ id: 'security', label: 'Security', panel: securityPanel() }] : []),
  ];
  const timeout = model.sessionTimeout === undefined ? '' : ` data-session-timeout="${model.sessionTimeout}"`;
  const expiry = model.showTokens ? ` data-token-expiry-warning="${model.tokenExpiryWarning}" data-server-time="${model.now.toISOString()}"` : '';
  const body =
    topbar(model.csrfToken) +
    `<div class="page" id="page" data-user-id="${model.user.id}"${timeout}${expiry}>` +
    '<div id="session-notice" class="notice" role="alert"></div>' +
    `<main id="profile">${previousLoginNotice(model)}${identity(model.user, model.account)}` +
    tabSet('Account', tabs) +
    '<noscript><p class="alert">The token and session lists need JavaScript.</p></noscript>' +
    '</main></div>' +
    idleDialog();
  const security = model.showSecurity ? ['/static/webauthn.js', '/static/security.js'] : [];
  return htmlPage(`${model.user.username} · Automation Service`, body, { scripts: ['/static/session-monitor.js', '/static/page-kit.js', '/static/tabs.js', ...security, '/static/profile.js'] });
}

/** The bar above every signed-in page: the name of the service, and `Log out`. */
export function topbar(csrfToken: string): string {
  return (
    '<header class="topbar"><a class="brand" href="/accounts/profile/">Automation Service</a>' +
    '<form id="logout-form" method="post" action="/api/logout/">' +
    `<input type="hidden" name="csrfmiddlewaretoken" value="${escapeHtml(csrfToken)}">` +
    '<input type="hidden" name="next" value="/api/login/">' +
    '<button type="submit" class="secondary">Log out</button></form></header>'
  );
}

/** A page's tabs and their panels (WAI-ARIA tabs pattern; tabs.js runs them), the first selected. */
export function tabSet(label: string, tabs: { id: string; label: string; panel: string }[]): string {
  const buttons = tabs
    .map((tab, i) =>
      `<button type="button" role="tab" id="tab-${tab.id}" data-tab="${tab.id}" aria-controls="panel-${tab.id}" ` +
      `aria-selected="${i === 0}" tabindex="${i === 0 ? 0 : -1}">${tab.label}</button>`)
    .join('');
  const panels = tabs
    .map((tab, i) =>
      `<section role="tabpanel" id="panel-${tab.id}" aria-labelledby="tab-${tab.id}" tabindex="0"${i === 0 ? '' : ' hidden'}>${tab.panel}</section>`)
    .join('');
  return `<div role="tablist" aria-label="${escapeHtml(label)}">${buttons}</div>${panels}`;
}

function identity(user: User, account: string): string {
  const name = [user.firstName, user.lastName].filter(Boolean).join(' ');
  const role = user.isSuperuser ? 'Superuser' : user.isSystemAuditor ? 'System auditor' : 'User';
  const facts: [string, string][] = [
    ['Name', name ? escapeHtml(name) : '—'],
    ['Email', user.email ? escapeHtml(user.email) : '—'],
    ['Role', role],
    ['Account', escapeHtml(account)],
    ['Last login', user.lastLogin ? dateTime(user.lastLogin) : '—'],
  ];
  return (
    '<section class="identity" aria-labelledby="identity-name">' +
    `<h1 id="identity-name">${escapeHtml(user.username)}</h1><dl>` +
    facts.map(([term, value]) => `<div><dt>${term}</dt><dd>${value}</dd></div>`).join('') +
    '</dl></section>'
  );
}

function tokensPanel(): string {
  return (
    '<h2>Personal access tokens</h2>' +
    '<p class="hint">A token lets a script use the API as you (<code>Authorization: Bearer …</code>). A <code>read</code> token can only read.</p>' +
    '<form id="token-form" class="inline-form">' +
    '<div class="field"><label for="token-description">Description</label>' +
    '<input id="token-description" name="description" type="text" maxlength="1024" autocomplete="off"></div>' +
    '<div class="field narrow"><label for="token-scope">Scope</label>' +
    '<select id="token-scope" name="scope"><option value="read">read</option><option value="write" selected>write</option></select></div>' +
    '<button type="submit">Create token</button></form>' +
    '<p id="token-error" class="alert" role="alert"></p>' +
    '<div id="new-token" class="new-token" hidden>' +
    // Created or rotated: either way the new secret is shown here, once.
    '<label for="new-token-value">New token</label>' +
    '<p id="new-token-hint">Copy it now: it is shown only once.</p>' +
    '<div class="copy-row"><input id="new-token-value" type="text" readonly aria-describedby="new-token-hint">' +
    '<button type="button" id="copy-token" class="secondary">Copy</button></div></div>' +
    '<p id="tokens-status" class="status" role="status"></p>' +
    table('tokens', 'Your tokens', ['Description', 'Scope', 'Application', 'Created', 'Last used', 'Expires']) +
    '<p id="tokens-empty" class="empty" hidden>No tokens yet.</p>'
  );
}

function sessionsPanel(): string {
  return (
    '<h2>Signed-in browsers</h2>' +
    '<p class="hint">Every browser where you are logged in. End any session you do not recognise.</p>' +
    '<p id="sessions-status" class="status" role="status"></p>' +
    table('sessions', 'Your sessions', ['Browser', 'Address', 'Signed in', 'Last seen', 'Expires']) +
    '<div class="toolbar"><button type="button" id="sessions-refresh" class="secondary">Refresh</button></div>'
  );
}

/** The Security tab (SPEC §16): the authenticator app, the recovery codes, the security keys; security.js drives it. */
function securityPanel(): string {
  const codeField = (id: string) =>
    `<div class="field narrow"><label for="${id}">Authentication code</label>` +
    `<input id="${id}" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="64" required></div>`;
  return (
    '<h2>Two-step verification</h2>' +
    '<p class="hint">A second step at every login with your password: a code from an authenticator app, or a security key.</p>' +
    '<p id="security-status" class="status" role="status"></p>' +
    // Proof for a factor change (SPEC §16), shown once the user has a factor; sent as `code` with the change.
    '<div id="proof" class="field narrow" hidden><label for="proof-code">Current code for changes</label>' +
    '<input id="proof-code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="64" aria-describedby="proof-hint">' +
    '<p id="proof-hint" class="hint">Adding or removing a factor asks for a code of your authenticator app or a recovery code, ' +
    'unless you logged in with your second step in the last five minutes.</p></div>' +
    '<h3>Authenticator app</h3>' +
    '<p id="totp-state"></p>' +
    '<button type="button" id="totp-start" hidden>Set up authenticator app</button>' +
    '<div id="totp-enrol" hidden>' +
    '<img id="totp-qr" alt="QR code for your authenticator app: scan it, or type the secret below" width="200" height="200">' +
    '<p>Secret: <code id="totp-secret"></code></p>' +
    `<form id="totp-confirm-form" class="inline-form">${codeField('totp-code')}<button type="submit">Confirm</button></form></div>` +
    `<form id="totp-remove-form" class="inline-form" hidden>${codeField('totp-remove-code')}` +
    '<button type="submit" class="secondary">Remove authenticator app</button></form>' +
    '<h3>Recovery codes</h3>' +
    '<p id="recovery-left"></p>' +
    '<div id="recovery-codes" class="new-token" hidden><p id="recovery-hint">Save these now: each works once, and they are shown only this time.</p>' +
    '<ul id="recovery-codes-list" class="recovery-codes" aria-describedby="recovery-hint"></ul></div>' +
    `<form id="recovery-form" class="inline-form" hidden>${codeField('recovery-code')}` +
    '<button type="submit" class="secondary">New recovery codes</button></form>' +
    '<h3>Security keys</h3>' +
    '<form id="key-form" class="inline-form"><div class="field"><label for="key-name">Key name</label>' +
    '<input id="key-name" name="name" type="text" maxlength="100" autocomplete="off" required></div>' +
    '<button type="submit">Add security key</button></form>' +
    table('keys', 'Your security keys', ['Name', 'Added', 'Last used']) +
    '<p id="keys-empty" class="empty" hidden>No security keys yet.</p>'
  );
}

export function table(id: string, caption: string, columns: string[]): string {
  return (
    `<table id="${id}-table" tabindex="-1"><caption>${caption}</caption><thead><tr>` +
    columns.map((c) => `<th scope="col">${c}</th>`).join('') +
    '<th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody></tbody></table>'
  );
}

function idleDialog(): string {
  return (
    '<dialog id="idle-dialog" role="alertdialog" aria-labelledby="idle-title" aria-describedby="idle-text">' +
    '<h2 id="idle-title">Are you still there?</h2>' +
    '<p id="idle-text">You will be logged out in <span id="idle-seconds">60</span> seconds because this session has been idle.</p>' +
    '<div class="actions"><button type="submit" form="logout-form" class="secondary">Log out</button>' +
    '<button type="button" id="stay-signed-in" autofocus>Stay signed in</button></div>' +
    '</dialog>'
  );
}

/** UTC on the server; profile.js rewrites every `<time>` in the browser's own locale and zone. */
function dateTime(date: Date): string {
  const iso = date.toISOString();
  return `<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}
