/*
 * Browser script of the profile's Security tab (SPEC §16), loaded before profile.js, which calls the
 * loader it registers in `window.tabLoaders` when the tab opens: the authenticator app (set up with the
 * server-made QR code, confirm, remove), the recovery codes (shown once), the security keys (added through
 * @simplewebauthn/browser, /static/webauthn.js; removed).
 */

interface Window {
  tabLoaders?: Record<string, () => Promise<void>>;
}

(function securityTab() {
  const api = window.pageApi;
  const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T | null;
  if (!byId('totp-state')) return;

  interface Status {
    totp: boolean;
    security_keys: { id: number; name: string; created: string; last_used: string | null }[];
    recovery_codes_left: number;
  }

  const { dateFormat, detailOf } = window.pageKit;
  const when = (iso: string | null) => (iso ? dateFormat.format(new Date(iso)) : 'Never');

  function say(text: string, failed = false): void {
    window.pageKit.say('security-status', text, failed);
  }

  /** Recovery codes are shown once, where the user can copy them, and announced. */
  function showCodes(codes: string[]): void {
    const list = byId('recovery-codes-list')!;
    list.replaceChildren(...codes.map((code) => {
      const item = document.createElement('li');
      const text = document.createElement('code');
      text.textContent = code;
      item.append(text);
      return item;
    }));
    byId('recovery-codes')!.hidden = false;
  }

  async function load(): Promise<void> {
    const res = await api.request('/api/v2/me/mfa/');
    if (res.status !== 200) return say(detailOf(res.body, 'Two-step verification could not be loaded.'), true);
    const status = res.body as Status;
    byId('totp-state')!.textContent = status.totp ? 'An authenticator app is set up.' : 'No authenticator app is set up.';
    byId('totp-start')!.hidden = status.totp;
    byId('totp-remove-form')!.hidden = !status.totp;
    if (status.totp) byId('totp-enrol')!.hidden = true;
    const any = status.totp || status.security_keys.length > 0;
    byId('recovery-left')!.textContent = any ? `${status.recovery_codes_left} recovery codes left.` : 'Recovery codes come with your first factor.';
    byId('recovery-form')!.hidden = !any;
    byId('proof')!.hidden = !any;
    const tbody = document.querySelector('#keys-table tbody')!;
    tbody.replaceChildren(...status.security_keys.map(keyRow));
    byId('keys-empty')!.hidden = status.security_keys.length > 0;
  }

  function keyRow(key: Status['security_keys'][number]): HTMLTableRowElement {
    const row = document.createElement('tr');
    const cells = [key.name, when(key.created), when(key.last_used)].map((text) => {
      const cell = document.createElement('td');
      cell.textContent = text;
      return cell;
    });
    cells[0].id = `key-${key.id}-name`;
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'danger';
    remove.textContent = 'Remove';
    remove.setAttribute('aria-describedby', cells[0].id);
    remove.addEventListener('click', () => void removeKey(key, remove));
    const actions = document.createElement('td');
    actions.className = 'actions';
    actions.append(remove);
    row.append(...cells, actions);
    return row;
  }

  /** The proof a factor change may need: the code typed in "Current code for changes", if any. */
  function proof(): { code?: string } {
    const code = byId<HTMLInputElement>('proof-code')!.value.trim();
    return code ? { code } : {};
  }

  /** Why a change was refused; a missing proof points at its field. */
  function refused(res: { status: number; body: unknown }, fallback: string): void {
    if (res.status === 403 && /needs proof/.test(detailOf(res.body, ''))) {
      say('Enter a code of your authenticator app or a recovery code in "Current code for changes", then try again.', true);
      byId('proof-code')!.focus();
      return;
    }
    say(detailOf(res.body, fallback), true);
  }

  /** A proof is spent by the change it allowed. */
  function proofSpent(): void {
    byId<HTMLInputElement>('proof-code')!.value = '';
  }

  async function removeKey(key: Status['security_keys'][number], button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    const res = await api.request(`/api/v2/me/mfa/security_keys/${key.id}/`, { method: 'DELETE', body: proof() });
    if (res.status !== 204) {
      button.disabled = false;
      return refused(res, 'The key could not be removed.');
    }
    proofSpent();
    say(`Security key "${key.name}" removed.`);
    await load();
  }

  /** Runs a form's request with its button disabled; the answer's body, or null after saying why it failed. */
  function onSubmit(formId: string, run: (form: HTMLFormElement) => Promise<void>): void {
    const form = byId<HTMLFormElement>(formId);
    form?.addEventListener('submit', (event) => {
      event.preventDefault();
      const button = form.querySelector('button')!;
      button.disabled = true;
      void run(form).finally(() => {
        button.disabled = false;
      });
    });
  }

  const codeOf = (form: HTMLFormElement) => (form.elements.namedItem('code') as HTMLInputElement).value.trim();

  async function startTotp(): Promise<void> {
    const res = await api.request('/api/v2/me/mfa/totp/', { method: 'POST', body: proof() });
    if (res.status !== 201) return refused(res, 'The authenticator app could not be set up.');
    proofSpent();
    byId<HTMLImageElement>('totp-qr')!.src = res.body.qr_code;
    byId('totp-secret')!.textContent = res.body.secret;
    byId('totp-enrol')!.hidden = false;
    byId('totp-code')!.focus();
  }

  byId('totp-start')?.addEventListener('click', () => void startTotp());

  /** A form that proves a current code: the request, then its message, the new recovery codes if any, and a reload. */
  function codeForm(formId: string, path: string, method: string, expected: number, done: string): void {
    onSubmit(formId, async (form) => {
      const res = await api.request(path, { method, body: { code: codeOf(form) } });
      if (res.status !== expected) return say(detailOf(res.body, 'The code was not accepted.'), true);
      form.reset();
      say(done);
      if (res.body?.recovery_codes) showCodes(res.body.recovery_codes);
      await load();
    });
  }

  codeForm('totp-confirm-form', '/api/v2/me/mfa/totp/confirm/', 'POST', 200, 'Authenticator app set up.');
  codeForm('totp-remove-form', '/api/v2/me/mfa/totp/', 'DELETE', 204, 'Authenticator app removed.');
  codeForm('recovery-form', '/api/v2/me/mfa/recovery_codes/', 'POST', 200, 'New recovery codes made; the old ones no longer work.');

  onSubmit('key-form', async (form) => {
    const name = (form.elements.namedItem('name') as HTMLInputElement).value.trim();
    const options = await api.request('/api/v2/me/mfa/security_keys/options/', { method: 'POST', body: {} });
    if (options.status !== 200) return say(detailOf(options.body, 'The key could not be added.'), true);
    let credential: unknown;
    try {
      credential = await window.SimpleWebAuthnBrowser.startRegistration({ optionsJSON: options.body });
    } catch (err) {
      return say(`The security key did not answer: ${(err as Error).message}`, true);
    }
    const res = await api.request('/api/v2/me/mfa/security_keys/', { method: 'POST', body: { name, credential, ...proof() } });
    if (res.status !== 201) return refused(res, 'The key could not be added.');
    proofSpent();
    form.reset();
    say(`Security key "${name}" added.`);
    if (res.body.recovery_codes) showCodes(res.body.recovery_codes);
    await load();
  });

  window.tabLoaders = { ...window.tabLoaders, security: load };
})();
