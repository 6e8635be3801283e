import { htmlPage } from '../common/html';
import { table, tabSet, topbar } from './profile-page';

/**
 * `/accounts/admin/` (SPEC §22): everyone logged in now (Sessions) and the locked (name, address) pairs (Locked),
 * filled by admin.js from `/api/v2/sessions/` and `/api/v2/login_locks/`. Superusers get a button per row;
 * system auditors read the same tables without them.
 */
export function renderAdminPage(model: { csrfToken: string; superuser: boolean }): string {
  const tabs = [
    {
      id: 'sessions',
      label: 'Sessions',
      panel:
        '<h2>Everyone logged in now</h2><p id="admin-sessions-status" class="status" role="status"></p>' +
        table('admin-sessions', 'Live sessions', ['User', 'Address', 'Method', 'Created', 'Last activity']) +
        '<p id="admin-sessions-empty" class="empty" hidden>Nobody is logged in.</p>',
    },
    {
      id: 'locked',
      label: 'Locked',
      panel:
        '<h2>Locked logins</h2><p class="hint">A lock is one name from one address: the same name from elsewhere is never refused.</p>' +
        '<p id="admin-locks-status" class="status" role="status"></p>' +
        table('admin-locks', 'Locked names and addresses', ['User', 'Address', 'Failures', 'Locked until']) +
        '<p id="admin-locks-empty" class="empty" hidden>No name is locked.</p>',
    },
  ];
  const body =
    topbar(model.csrfToken) +
    `<div class="page" id="page" data-superuser="${model.superuser}">` +
    '<div id="session-notice" class="notice" role="alert"></div>' +
    `<main id="admin"><h1>Administration</h1>${tabSet('Administration', tabs)}` +
    '<noscript><p class="alert">These lists need JavaScript.</p></noscript></main></div>';
  return htmlPage('Administration · Automation Service', body, { scripts: ['/static/session-monitor.js', '/static/page-kit.js', '/static/tabs.js', '/static/admin.js'] });
}

/** What a signed-in user who is neither a superuser nor a system auditor gets. */
export const ADMIN_FORBIDDEN_PAGE = htmlPage(
  'Forbidden · Automation Service',
  '<main class="card"><h1>Forbidden</h1><p role="alert">You do not have permission to view this page.</p><p><a href="/accounts/profile/">Back to your profile</a></p></main>',
);
