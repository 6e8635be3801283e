/*
 * Browser script (no import or export, so tsc emits a plain script for a <script src>): watches the
 * page's session. It tells the user within seconds that the session was ended elsewhere, and why
 * (SPEC §13), and warns sixty seconds before the idle timeout with a "Stay signed in" button.
 * It also gives the page's other scripts `window.pageApi`, the one way they call the JSON API, so
 * every answer's Session-Timeout and every 401 reason reaches it.
 */

interface PageApiRequest {
  method?: string;
  body?: unknown;
  /** Sends X-WS-Session-Quiet: the request does not slide the session. */
  quiet?: boolean;
}

interface PageApiResult {
  status: number;
  /** The parsed JSON answer, typed by each page script for the endpoint it called. */
  body: any;
}

interface PageApi {
  request(path: string, init?: PageApiRequest): Promise<PageApiResult>;
}

interface Window {
  pageApi: PageApi;
}

(function sessionMonitor() {
  const EVENTS_URL = '/api/v2/me/session/events/';
  const PROBE_URL = '/api/v2/me/';
  const WARN_BEFORE_MS = 60_000;
  const PROBE_EVERY_MS = 5_000;

  const page = document.getElementById('page');
  const notice = document.getElementById('session-notice');
  const dialog = document.getElementById('idle-dialog') as HTMLDialogElement | null;
  const secondsLeft = document.getElementById('idle-seconds');
  let ended = false;
  let deadline = 0;
  let warnTimer = 0;
  let countdownTimer = 0;
  let probeTimer = 0;
  let events: EventSource | null = null;
  let focusBeforeDialog: Element | null = null;

  function csrfToken(): string {
    const entry = document.cookie.split('; ').find((c) => c.startsWith('csrftoken='));
    return entry ? decodeURIComponent(entry.slice('csrftoken='.length)) : '';
  }

  async function request(path: string, init: PageApiRequest = {}): Promise<PageApiResult> {
    const method = init.method ?? 'GET';
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    if (!['GET', 'HEAD', 'OPTIONS'].includes(method)) headers['X-CSRFToken'] = csrfToken();
    if (init.quiet) headers['X-WS-Session-Quiet'] = '1';
    const res = await fetch(path, {
      method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
    const timeout = res.headers.get('Session-Timeout');
    if (timeout !== null && Number.isFinite(Number(timeout))) setTimeLeft(Number(timeout));
    let body = null;
    if (res.status !== 204) {
      try {
        body = await res.json();
      } catch {
        body = null;
      }
    }
    if (res.status === 401) showEnded(body?.reason ?? null, body?.detail ?? null);
    return { status: res.status, body };
  }

  window.pageApi = { request };

  /** The session ended: say why in the role=alert notice, offer the login page, freeze the rest. */
  function showEnded(reason: string | null, detail: string | null): void {
    if (ended || !notice) return;
    ended = true;
    window.clearTimeout(warnTimer);
    window.clearInterval(countdownTimer);
    window.clearTimeout(probeTimer);
    events?.close();
    if (dialog?.open) dialog.close();
    const message = document.createElement('p');
    message.textContent = detail || 'Your session has ended.';
    const login = document.createElement('a');
    login.className = 'button';
    login.href = '/api/login/' + (reason ? `?reason=${encodeURIComponent(reason)}` : '');
    login.textContent = 'Log in';
    notice.replaceChildren(message, login);
    document.getElementById('profile')?.setAttribute('inert', '');
    const logout = document.getElementById('logout-form');
    if (logout) logout.hidden = true;
    login.focus();
  }

  /** A fresh count of seconds before the idle timeout, from Session-Timeout or the event stream. */
  function setTimeLeft(seconds: number): void {
    if (ended) return;
    deadline = Date.now() + seconds * 1000;
    window.clearTimeout(warnTimer);
    const warnIn = deadline - WARN_BEFORE_MS - Date.now();
    if (warnIn <= 0) return showWarning();
    hideWarning();
    warnTimer = window.setTimeout(showWarning, warnIn);
  }

  function showWarning(): void {
    if (ended || !dialog) return;
    updateCountdown();
    window.clearInterval(countdownTimer);
    countdownTimer = window.setInterval(updateCountdown, 1000);
    if (!dialog.open) {
      focusBeforeDialog = document.activeElement;
      dialog.showModal();
      document.getElementById('stay-signed-in')?.focus();
    }
  }

  function hideWarning(): void {
    window.clearInterval(countdownTimer);
    if (!dialog?.open) return;
    dialog.close();
    if (focusBeforeDialog instanceof HTMLElement) focusBeforeDialog.focus();
  }

  function updateCountdown(): void {
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    if (secondsLeft) secondsLeft.textContent = String(left);
    // The server ends the session itself and the stream says so; this only covers a stream that is down.
    if (left === 0) {
      window.clearInterval(countdownTimer);
      window.setTimeout(() => void probe(), 1500);
    }
  }

  /** Any plain API request slides the session; its Session-Timeout then closes the warning. */
  async function staySignedIn(): Promise<void> {
    try {
      await request(PROBE_URL);
    } catch {
      // Network trouble: the warning stays up and the user can try again.
    }
  }

  /**
   * Asks quietly whether the session still lives; a 401 carries the reason. It never rejects (a failed
   * request is caught and tried again), so the timers start it with `void`.
   */
  async function probe(): Promise<void> {
    if (ended) return;
    try {
      const res = await request(PROBE_URL, { quiet: true });
      if (res.status === 200 && !events) connect();
    } catch {
      // Offline for a moment: try again below.
    }
    if (!ended && !events) {
      window.clearTimeout(probeTimer);
      probeTimer = window.setTimeout(() => void probe(), PROBE_EVERY_MS);
    }
  }

  function connect(): void {
    if (ended) return;
    if (!('EventSource' in window)) {
      void probe();
      return;
    }
    const source = new EventSource(EVENTS_URL);
    events = source;
    source.addEventListener('session', (e) => {
      const data = JSON.parse((e as MessageEvent<string>).data) as { expires_in?: number };
      if (typeof data.expires_in === 'number') setTimeLeft(data.expires_in);
    });
    source.addEventListener('ended', (e) => {
      const data = JSON.parse((e as MessageEvent<string>).data) as { reason?: string | null; detail?: string };
      source.close();
      showEnded(data.reason ?? null, data.detail ?? null);
    });
    source.addEventListener('error', () => {
      // CONNECTING: the browser retries by itself. CLOSED: refused (401 when the session is over).
      if (source.readyState !== EventSource.CLOSED || ended) return;
      events = null;
      void probe();
    });
  }

  if (!page || page.dataset.sessionTimeout === undefined) return;
  document.getElementById('stay-signed-in')?.addEventListener('click', () => void staySignedIn());
  dialog?.addEventListener('cancel', (e) => {
    // Escape proves someone is there: treat it as "Stay signed in" rather than a silent dismissal.
    e.preventDefault();
    void staySignedIn();
  });
  setTimeLeft(Number(page.dataset.sessionTimeout));
  connect();
})();
