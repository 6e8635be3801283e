/*
 * Browser script of /accounts/profile/ (plain script, loaded after session-monitor.js, whose
 * `window.pageApi` it uses, and page-kit.js and tabs.js): the Tokens tab
 * (create, show once, copy, rotate, revoke; `Expires soon` on tokens within TOKEN_EXPIRY_WARNING_SECONDS)
 * and the Sessions tab (list, end another).
 */

(function profilePage() {
  const api = window.pageApi;
  const page = document.getElementById('page')!;
  const userId = page.dataset.userId;
  // Expiry is measured on the server's clock: the page says what time it was there when it was rendered.
  const expiryWarningMs = Number(page.dataset.tokenExpiryWarning ?? 0) * 1000;
  const clockSkewMs = page.dataset.serverTime ? Date.parse(page.dataset.serverTime) - Date.now() : 0;

  const { el, dateFormat, timeCell, say, detailOf, rowButton, rowRequest } = window.pageKit;

  /** "Chrome 131 on Linux" out of a user agent string; the full string stays available below it. */
  function describeAgent(agent: string): string {
    if (!agent) return 'Unknown browser';
    const browsers: [RegExp, string][] = [
      [/Edg\/(\d+)/, 'Edge'], [/OPR\/(\d+)/, 'Opera'], [/Firefox\/(\d+)/, 'Firefox'],
      [/HeadlessChrome\/(\d+)/, 'Headless Chrome'], [/Chrom(?:e|ium)\/(\d+)/, 'Chrome'],
      [/Version\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
    ];
    const systems: [RegExp, string][] = [
      [/Windows/, 'Windows'], [/Android/, 'Android'], [/iPhone|iPad/, 'iOS'], [/Mac OS X/, 'macOS'], [/CrOS/, 'ChromeOS'], [/Linux/, 'Linux'],
    ];
    const browser = browsers.find(([re]) => re.test(agent));
    if (!browser) return agent.split(' ')[0].slice(0, 60);
    const version = browser[0].exec(agent)![1];
    const system = systems.find(([re]) => re.test(agent));
    return `${browser[1]} ${version}${system ? ` on ${system[1]}` : ''}`;
  }

  // ---- tokens --------------------------------------------------------------------------------

  interface Token {
    id: number;
    description: string;
    scope: string;
    application: number | null;
    summary_fields?: { application?: { name: string } };
    created: string;
    last_used: string | null;
    expires: string;
  }

  async function loadTokens(): Promise<void> {
    const tbody = document.querySelector('#tokens-table tbody');
    if (!tbody) return;
    const res = await api.request(`/api/v2/users/${userId}/tokens/?page_size=200`);
    if (res.status !== 200) {
      say('tokens-status', res.status === 404 ? 'Tokens are not available on this server.' : detailOf(res.body, 'The tokens could not be loaded.'), true);
      return;
    }
    const tokens = res.body.results as Token[];
    tbody.replaceChildren(...tokens.map(tokenRow));
    document.getElementById('tokens-empty')!.hidden = tokens.length > 0;
  }

  function expiresSoon(token: Token): boolean {
    return expiryWarningMs > 0 && Date.parse(token.expires) - (Date.now() + clockSkewMs) <= expiryWarningMs;
  }

  function tokenRow(token: Token): HTMLTableRowElement {
    const row = el('tr');
    const description = el('td', token.description || '(no description)');
    description.id = `token-${token.id}-description`;
    const application = token.application === null ? 'Personal' : token.summary_fields?.application?.name ?? `Application ${token.application}`;
    const expires = timeCell(token.expires);
    if (expiresSoon(token)) {
      row.classList.add('expires-soon');
      expires.append(' ', el('span', 'Expires soon', 'badge warn'));
    }
    const actions = el('td', undefined, 'actions');
    actions.append(
      rowButton('Rotate', 'secondary', (button) => rotateToken(token, button), description.id),
      rowButton('Revoke', 'danger', (button) => revokeToken(token, button), description.id),
    );
    row.append(description, el('td', token.scope), el('td', application), timeCell(token.created), timeCell(token.last_used), expires, actions);
    return row;
  }

  /** The one place a new secret is shown: after a creation or a rotation, once, selected for copying. */
  function showNewToken(secret: string, status: string): void {
    const shown = document.getElementById('new-token-value') as HTMLInputElement;
    shown.value = secret;
    document.getElementById('new-token')!.hidden = false;
    say('tokens-status', status);
    shown.focus();
    shown.select();
  }

  async function createToken(form: HTMLFormElement): Promise<void> {
    const button = form.querySelector('button')!;
    const description = form.elements.namedItem('description') as HTMLInputElement;
    const scope = form.elements.namedItem('scope') as HTMLSelectElement;
    say('token-error', '');
    button.disabled = true;
    try {
      const res = await api.request('/api/v2/tokens/', { method: 'POST', body: { description: description.value, scope: scope.value } });
      if (res.status !== 201) {
        say('token-error', detailOf(res.body, 'The token could not be created.'));
        return;
      }
      description.value = '';
      showNewToken(res.body.token, 'Token created.');
      await loadTokens();
    } finally {
      button.disabled = false;
    }
  }

  async function copyToken(): Promise<void> {
    const shown = document.getElementById('new-token-value') as HTMLInputElement;
    let copied = false;
    try {
      await navigator.clipboard.writeText(shown.value);
      copied = true;
    } catch {
      shown.select();
      copied = document.execCommand('copy');
    }
    say('tokens-status', copied ? 'Token copied to the clipboard.' : 'Select the token and copy it by hand.', !copied);
  }

  /** A new secret in the token's place (same description, scope and application); the old one stops working at once. */
  async function rotateToken(token: Token, button: HTMLButtonElement): Promise<void> {
    const res = await rowRequest(button, `/api/v2/tokens/${token.id}/rotate/`, { method: 'POST', body: {} }, [201], 'tokens-status', 'The token could not be rotated.');
    if (!res) return;
    showNewToken(res.body.token, `Token "${token.description || token.id}" rotated: the old token no longer works.`);
    await loadTokens();
  }

  async function revokeToken(token: Token, button: HTMLButtonElement): Promise<void> {
    if (!(await rowRequest(button, `/api/v2/tokens/${token.id}/`, { method: 'DELETE' }, [204], 'tokens-status', 'The token could not be revoked.'))) return;
    say('tokens-status', `Token "${token.description || token.id}" revoked.`);
    await loadTokens();
    document.getElementById('tokens-table')?.focus();
  }

  document.getElementById('token-form')?.addEventListener('submit', (e) => {
    e.preventDefault();
    void createToken(e.currentTarget as HTMLFormElement);
  });
  document.getElementById('copy-token')?.addEventListener('click', () => void copyToken());

  // ---- sessions ------------------------------------------------------------------------------

  interface Session {
    id: number;
    created: string;
    last_seen: string;
    expires: string;
    ip_address: string;
    user_agent: string;
    current: boolean;
  }

  async function loadSessions(): Promise<void> {
    const tbody = document.querySelector('#sessions-table tbody');
    if (!tbody) return;
    const res = await api.request('/api/v2/me/sessions/?page_size=200');
    if (res.status !== 200) {
      if (res.status !== 401) say('sessions-status', detailOf(res.body, 'The sessions could not be loaded.'), true);
      return;
    }
    tbody.replaceChildren(...(res.body.results as Session[]).map(sessionRow));
  }

  function sessionRow(session: Session): HTMLTableRowElement {
    const row = el('tr');
    const browser = el('td');
    browser.append(describeAgent(session.user_agent));
    // Spaces between the parts, so the row reads "… on Linux current …" (text and accessible name), not "Linuxcurrent".
    if (session.current) browser.append(' ', el('span', 'current', 'badge'));
    browser.append(' ', el('span', session.user_agent, 'agent'));
    const actions = el('td', undefined, 'actions');
    if (!session.current) actions.append(rowButton('End session', 'danger', (button) => endSession(session, button)));
    row.append(browser, el('td', session.ip_address), timeCell(session.created), timeCell(session.last_seen), timeCell(session.expires), actions);
    return row;
  }

  async function endSession(session: Session, button: HTMLButtonElement): Promise<void> {
    // 404: it had ended already, which is what was asked.
    if (!(await rowRequest(button, `/api/v2/me/sessions/${session.id}/`, { method: 'DELETE' }, [204, 404], 'sessions-status', 'The session could not be ended.'))) return;
    say('sessions-status', `Session of ${describeAgent(session.user_agent)} at ${session.ip_address} ended.`);
    await loadSessions();
    document.getElementById('sessions-table')?.focus();
  }

  document.getElementById('sessions-refresh')?.addEventListener('click', () => void loadSessions());

  // ---- start ---------------------------------------------------------------------------------

  for (const time of Array.from(document.querySelectorAll<HTMLTimeElement>('.identity time'))) {
    time.textContent = dateFormat.format(new Date(time.dateTime));
  }
  window.pageTabs.start({ tokens: loadTokens, sessions: loadSessions });
})();
