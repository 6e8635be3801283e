/*
 * Browser script of /accounts/admin/ (SPEC §22; after session-monitor.js, page-kit.js and tabs.js): the Sessions
 * tab lists every live session (`/api/v2/sessions/`), the Locked tab every locked pair (`/api/v2/login_locks/`);
 * a superuser's page has `End session` and `Unlock` on each row, an auditor's none (the API refuses them anyway).
 */

(function adminPage() {
  const api = window.pageApi;
  const { el, timeCell, say, detailOf, rowButton, rowRequest } = window.pageKit;
  const superuser = document.getElementById('page')?.dataset.superuser === 'true';

  interface LiveSession {
    id: number;
    summary_fields: { user: { username: string } };
    ip_address: string;
    source: string;
    created: string;
    last_seen: string;
  }

  interface Lock {
    id: number;
    username: string;
    ip_address: string;
    failures: number;
    locked_until: string | null;
  }

  /** Fills a table from a list route; the rows made by `row`, the empty note shown when there are none. */
  async function fill<T>(name: string, path: string, row: (item: T) => HTMLTableRowElement, failure: string): Promise<void> {
    const tbody = document.querySelector(`#admin-${name}-table tbody`);
    if (!tbody) return;
    const res = await api.request(path);
    if (res.status !== 200) {
      if (res.status !== 401) say(`admin-${name}-status`, detailOf(res.body, failure), true);
      return;
    }
    const items = res.body.results as T[];
    tbody.replaceChildren(...items.map(row));
    document.getElementById(`admin-${name}-empty`)!.hidden = items.length > 0;
  }

  /** A row's action cell: its button for a superuser, nothing for an auditor. */
  function actions(button: () => HTMLButtonElement): HTMLTableCellElement {
    const cell = el('td', undefined, 'actions');
    if (superuser) cell.append(button());
    return cell;
  }

  function sessionRow(session: LiveSession): HTMLTableRowElement {
    const row = el('tr');
    const user = session.summary_fields.user.username;
    const end = () => rowButton('End session', 'danger', (button) => endSession(session, button));
    row.append(el('td', user), el('td', session.ip_address), el('td', session.source), timeCell(session.created), timeCell(session.last_seen), actions(end));
    return row;
  }

  function lockRow(lock: Lock): HTMLTableRowElement {
    const row = el('tr');
    const unlock = () => rowButton('Unlock', 'danger', (button) => unlockPair(lock, button));
    row.append(el('td', lock.username), el('td', lock.ip_address), el('td', String(lock.failures)), timeCell(lock.locked_until, 'Until unlocked'), actions(unlock));
    return row;
  }

  const loadSessions = () => fill('sessions', '/api/v2/sessions/?page_size=200', sessionRow, 'The sessions could not be loaded.');
  const loadLocks = () => fill('locks', '/api/v2/login_locks/?locked=true&page_size=200', lockRow, 'The locks could not be loaded.');

  async function endSession(session: LiveSession, button: HTMLButtonElement): Promise<void> {
    // 404: it had ended already, which is what was asked.
    if (!(await rowRequest(button, `/api/v2/sessions/${session.id}/`, { method: 'DELETE' }, [204, 404], 'admin-sessions-status', 'The session could not be ended.'))) return;
    say('admin-sessions-status', `Session of ${session.summary_fields.user.username} at ${session.ip_address} ended.`);
    await loadSessions();
  }

  async function unlockPair(lock: Lock, button: HTMLButtonElement): Promise<void> {
    if (!(await rowRequest(button, `/api/v2/login_locks/${lock.id}/`, { method: 'DELETE' }, [204, 404], 'admin-locks-status', 'The lock could not be removed.'))) return;
    say('admin-locks-status', `${lock.username} from ${lock.ip_address} unlocked.`);
    await loadLocks();
  }

  window.pageTabs.start({ sessions: loadSessions, locked: loadLocks });
})();
