import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import type { SqlRunner } from './seed-rows';
import { ADMIN_PASSWORD, mysqlDatabase, request, startProcess, stop } from './support';

/** Stored logins the dry run replays (issue 42: "over 1 000 stored logins ... within a second"). */
export const DRY_RUN_LOGINS = 1000;
const TIMES = 5;
const SOURCE = 'ldap:default';
/** The embedded database's file in DATA_DIR (src/config/app-config.ts). */
const SQLITE_FILE = 'automation.sqlite3';
const GROUPS = Array.from({ length: 20 }, (_, i) => `cn=group-${i},ou=groups,dc=example,dc=org`);

/**
 * The maps' dry run at the size issue 42 names: DRY_RUN_LOGINS users, each with a stored login through
 * ldap:default (a few groups and attributes) and a role or two in 20 organizations; then
 * `POST /api/v2/settings/maps/test/` with a candidate AUTHENTICATION_MAPS of 40 rules and `compare_last`
 * 1000, timed end to end from a client (median and slowest of TIMES). One line per database.
 */
export async function dryRunRow(kind: string, build: string): Promise<{ label: string; median: number; slowest: number; changed: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-maps-bench-'));
  const mysql = kind === 'mysql' ? await mysqlDatabase('_maps') : null;
  const env: Record<string, string> = { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dir, ADMIN_PASSWORD, LOG_LEVEL: 'warn' };
  if (mysql) env.DATABASE_URL = mysql.url;
  const { url, child } = await startProcess([join(build, 'src', 'main.js')], env, /"event":"listening","url":"(http:\/\/[^"]+?)\/"/);
  try {
    await seed(dir, mysql?.url);
    const admin = { Authorization: 'Basic ' + Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64'), 'Content-Type': 'application/json' };
    const body = JSON.stringify({ source: SOURCE, username: 'maps-user-1', compare_last: DRY_RUN_LOGINS, settings: { AUTHENTICATION_MAPS: candidateRules() } });
    const times: number[] = [];
    let changed = 0;
    for (let i = 0; i < TIMES + 1; i++) {
      const started = performance.now();
      const res = await request(`${url}/api/v2/settings/maps/test/`, { method: 'POST', headers: admin, body });
      const elapsed = performance.now() - started;
      if (res.status !== 200) throw new Error(`dry run answered ${res.status}: ${res.body.slice(0, 300)}`);
      const impact = JSON.parse(res.body).impact as { users_compared: number; users_changed: number };
      if (impact.users_compared !== DRY_RUN_LOGINS) throw new Error(`dry run compared ${impact.users_compared} logins`);
      changed = impact.users_changed;
      if (i > 0) times.push(elapsed); // the first warms the process up
    }
    times.sort((a, b) => a - b);
    return { label: `${kind}: POST /api/v2/settings/maps/test/ over ${DRY_RUN_LOGINS} logins`, median: times[Math.floor(times.length / 2)], slowest: times[times.length - 1], changed };
  } finally {
    await stop(child);
    await mysql?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A candidate of 40 rules over the seeded groups and attributes: gates, flags, organizations and teams. */
function candidateRules(): unknown[] {
  const rules: unknown[] = [{ name: 'gate', sources: ['ldap'], map_type: 'allow', triggers: { groups: { has_not: [GROUPS[19]] } } }];
  for (let i = 0; i < 39; i++) {
    const org = `Org ${i % 20}`;
    rules.push(
      i % 3 === 0
        ? { name: `team ${i}`, map_type: 'team', organization: org, team: `Team ${i}`, triggers: { groups: { has_and: [GROUPS[i % 20], GROUPS[(i + 1) % 20]] } }, revoke: true }
        : { name: `org ${i}`, map_type: 'organization', organization: org, role: i % 2 ? 'admin' : 'member', triggers: { attributes: { department: { in: [`dept-${i % 7}`] } } }, revoke: true },
    );
  }
  return rules;
}

/** Users, their stored logins and roles, written straight into the service's database. */
async function seed(dir: string, mysqlUrl: string | undefined): Promise<void> {
  let db: Seeder;
  if (mysqlUrl) {
    const connection = await createConnection(mysqlUrl);
    db = {
      query: (sql, params) => connection.query(sql, params),
      ids: async (sql) => ((await connection.query(sql)) as unknown as [{ id: number }[]])[0].map((r) => r.id),
      close: () => connection.end(),
    };
  } else {
    const sqlite = new Database(join(dir, SQLITE_FILE));
    sqlite.pragma('busy_timeout = 10000');
    db = {
      query: async (sql, params) => sqlite.prepare(sql).run(...((params ?? []) as unknown[])),
      ids: async (sql) => (sqlite.prepare(sql).all() as { id: number }[]).map((r) => r.id),
      close: () => {
        sqlite.close();
      },
    };
  }
  try {
    const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
    for (let o = 0; o < 20; o++) {
      await db.query('INSERT INTO main_organization (name, description, max_hosts, created, modified) VALUES (?, ?, 0, ?, ?)', [`Org ${o}`, '', now, now]);
    }
    const orgIds = await db.ids('SELECT id FROM main_organization ORDER BY id');
    for (const orgId of orgIds) {
      for (const field of ['admin_role', 'auditor_role', 'member_role']) await db.query('INSERT INTO main_rbac_roles (role_field, organization_id, team_id) VALUES (?, ?, NULL)', [field, orgId]);
    }
    const memberRoles = await db.ids("SELECT id FROM main_rbac_roles WHERE role_field = 'member_role' ORDER BY id");
    for (let u = 1; u <= DRY_RUN_LOGINS; u++) {
      const username = `maps-user-${u}`;
      await db.query(
        'INSERT INTO auth_user (username, username_folded, first_name, last_name, email, password, is_superuser, is_system_auditor, is_active, external_account, created, modified) VALUES (?, ?, ?, ?, ?, ?, 0, 0, 1, ?, ?, ?)',
        [username, username, 'Maps', `User ${u}`, `${username}@example.org`, '!unusable', 'ldap', now, now],
      );
    }
    const userIds = await db.ids("SELECT id FROM auth_user WHERE username LIKE 'maps-user-%' ORDER BY id");
    for (const [i, userId] of userIds.entries()) {
      await db.query('INSERT INTO main_rbac_role_members (role_id, user_id) VALUES (?, ?)', [memberRoles[i % memberRoles.length], userId]);
      const claims = {
        username: `maps-user-${i + 1}`,
        email: `maps-user-${i + 1}@example.org`,
        groups: [GROUPS[i % 20], GROUPS[(i + 1) % 20], GROUPS[(i * 7) % 20]],
        attributes: { uid: [`maps-user-${i + 1}`], mail: [`maps-user-${i + 1}@example.org`], department: [`dept-${i % 9}`], cn: [`Maps User ${i + 1}`] },
      };
      const at = new Date(Date.now() - i * 1000).toISOString().replace('T', ' ').replace('Z', '');
      await db.query('INSERT INTO auth_login_claims (user_id, source, login_at, allowed, claims) VALUES (?, ?, ?, 1, ?)', [userId, SOURCE, at, JSON.stringify(claims)]);
    }
  } finally {
    await db.close();
  }
}

/** What seeding needs of a database: a statement, the ids a query answers, and closing. */
interface Seeder extends SqlRunner {
  ids(sql: string): Promise<number[]>;
  close(): Promise<void> | void;
}
