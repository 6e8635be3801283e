import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import { seedRows, SqlRunner } from './seed-rows';
import { ADMIN_PASSWORD, mysqlDatabase, personalToken, request, sessionCookie, startProcess, stop } from './support';

/**
 * `npm run bench -- --scale N` (issue 21): one user with N live sessions, 0.4·N expired ones and N
 * tokens, on SQLite and on MariaDB/MySQL. Reports the auth path against the empty and the full
 * database, the time of a first and a middle page of every list (median of 5), the longest ping while
 * four clients page through sessions, while the sweeper runs and while all sessions are ended, ending one
 * session, ending all (the answer, then the real session refused, then the clean-up), and the service's
 * peak memory. Figures go to docs/benchmarks.md.
 */
const WRK_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SWEEP_SECONDS = 20;
/** The sweeper's own budget per pass (src/sessions/session-sweeper.service.ts). */
const PASS_BUDGET_MS = 20_000;
const BULK_PASSWORD = 'Many-rows-pass-1';
/** SPEC §22: `/api/v2/login_locks/` is measured with this many counted pairs. */
const LOGIN_PAIRS = 100_000;
/** SPEC §23: the authentication events' lists are measured with this many events (one in ten the bulk user's). */
const AUTH_EVENTS = 1_000_000;
/** SPEC §23: the activity stream's lists are measured with this many entries (one in ten touching the bulk user). */
const STREAM_ENTRIES = 1_000_000;

interface Line {
  what: string;
  value: string;
}

export async function runScale(n: number, databases: string[]): Promise<void> {
  const all: Record<string, Line[]> = {};
  for (const kind of databases) all[kind] = await scaleDatabase(kind, n);
  console.log(`scale benchmark: ${n} live sessions, ${Math.round(n * 0.4)} expired sessions, ${n} tokens for one user; ${AUTH_EVENTS} authentication events, ${STREAM_ENTRIES} activity stream entries`);
  // Every measure of any database, in the order first seen (some are one database's own).
  const whats = [...new Set(databases.flatMap((d) => all[d].map((l) => l.what)))];
  console.log('measure'.padEnd(62) + databases.map((d) => d.padStart(16)).join(''));
  for (const what of whats) {
    console.log(what.padEnd(62) + databases.map((d) => (all[d].find((l) => l.what === what)?.value ?? '').padStart(16)).join(''));
  }
}

async function scaleDatabase(kind: string, n: number): Promise<Line[]> {
  const lines: Line[] = [];
  const out = (what: string, value: string) => {
    lines.push({ what, value });
    console.error(`[${kind}] ${what}: ${value}`);
  };
  const dir = mkdtempSync(join(tmpdir(), 'svc-scale-'));
  const mysql = kind === 'mysql' ? await mysqlDatabase() : null;
  const env: Record<string, string> = { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dir, ADMIN_PASSWORD, LOG_LEVEL: 'info', SESSION_SWEEP_SECONDS: String(SWEEP_SECONDS) };
  if (mysql) env.DATABASE_URL = mysql.url;
  const boot = async () => {
    const started = await startProcess([join(__dirname, '..', 'src', 'main.js')], env, /"event":"listening","url":"(http:\/\/[^"]+?)\/"/);
    started.child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
    return started;
  };
  let log = '';
  let { url, child } = await boot();
  try {
    const admin = { Authorization: 'Basic ' + Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64') };
    const bulkAuth = { Authorization: 'Basic ' + Buffer.from(`bulk:${BULK_PASSWORD}`).toString('base64') };
    const created = await request(`${url}/api/v2/users/`, {
      method: 'POST',
      headers: { ...admin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'bulk', password: BULK_PASSWORD }),
    });
    if (created.status !== 201) throw new Error(`user creation failed: ${created.status} ${created.body}`);
    const userId = JSON.parse(created.body).id as number;
    const cookie = await sessionCookie(url);
    const token = await personalToken(url, admin);

    const authPath = (label: string) => {
      for (const [path, headers] of [['ping', {}], ['session', { Cookie: cookie }], ['bearer', { Authorization: `Bearer ${token}` }]] as const) {
        const target = path === 'ping' ? `${url}/api/v2/ping/` : `${url}/api/v2/me/`;
        out(`${path} req/s, ${label}`, wrk(target, headers).toFixed(0));
      }
    };
    authPath('empty database');

    // Seeded with the service stopped, then started again: the startup with the rows is measured too.
    await stop(child);
    const seedStart = performance.now();
    await withDatabase(kind, dir, mysql?.url, async (db) => {
      await seedRows(db, kind === 'mysql', userId, { liveSessions: n, expiredSessions: Math.round(n * 0.4), tokens: n, loginPairs: LOGIN_PAIRS, authEvents: AUTH_EVENTS, streamEntries: STREAM_ENTRIES });
      await db.query(kind === 'mysql' ? 'ANALYZE TABLE user_session, oauth2_access_token, authentication_event, main_activitystream, main_activitystream_object' : 'ANALYZE');
      // MariaDB's lists at this size read from its buffer pool when it holds the indexes (docs/deployment.md).
      if (kind === 'mysql') out('MariaDB innodb_buffer_pool_size, MB', String((await count(db, 'SELECT @@innodb_buffer_pool_size DIV 1048576 AS n')) || '-'));
    });
    out('seeding, s', ((performance.now() - seedStart) / 1000).toFixed(1));
    const bootStart = performance.now();
    ({ url, child } = await boot());
    out('service start with the rows, ms', (performance.now() - bootStart).toFixed(0));

    // The sweeper's first pass comes SWEEP_SECONDS after the start: 0.4·N expired sessions, while pinging.
    const sweeping = await whilePinging(url, async () => {
      const deadline = Date.now() + 10 * SWEEP_SECONDS * 1000;
      while (Date.now() < deadline) {
        // A pass that ended before its time budget found nothing more due.
        const last = lastEvent(log, 'sessions_swept');
        if (last && last.duration_ms < PASS_BUDGET_MS * 0.9) break;
        await sleep(100);
      }
    });
    const passes = events(log, 'sessions_swept');
    const expired = passes.reduce((s, e) => s + e.expired, 0);
    const busy = passes.reduce((s, e) => s + e.duration_ms, 0);
    out('sweeper: expired sessions stamped', String(expired));
    out('sweeper: passes / busy ms', `${passes.length} / ${busy}`);
    out('sweeper: rows per minute of work', busy ? Math.round((expired / busy) * 60_000).toString() : '-');
    out('longest ping while the sweeper runs, ms', sweeping.toFixed(1));
    authPath(`${n} rows`);

    const bulkCookie = await sessionCookie(url, 'bulk', BULK_PASSWORD);
    const pageSize = 25;
    const lists: [string, Record<string, string>, number][] = [
      ['/api/v2/me/sessions/', { Cookie: bulkCookie }, n],
      [`/api/v2/users/${userId}/sessions/`, admin, n],
      ['/api/v2/sessions/', admin, n + 1],
      ['/api/v2/login_locks/', admin, LOGIN_PAIRS],
      ['/api/v2/tokens/', admin, n],
      [`/api/v2/users/${userId}/tokens/`, admin, n],
      [`/api/v2/users/${userId}/personal_tokens/`, bulkAuth, n],
      [`/api/v2/users/${userId}/authorized_tokens/`, admin, 0],
      ['/api/v2/applications/', admin, 0],
      ['/api/v2/users/', admin, 2],
      ['/api/v2/hosts/', admin, 0],
      ['/api/v2/credentials/', admin, 0],
      ['/api/v2/job_templates/', admin, 0],
      ['/api/v2/authentication_events/', admin, AUTH_EVENTS],
      [`/api/v2/users/${userId}/authentication_events/`, admin, AUTH_EVENTS / 10],
      ['/api/v2/activity_stream/', admin, STREAM_ENTRIES],
      [`/api/v2/users/${userId}/activity_stream/`, admin, STREAM_ENTRIES / 10],
      [`/api/v2/activity_stream/?user=${userId}`, admin, 0],
    ];
    for (const [path, headers, rows] of lists) {
      out(`${path} first page, median ms`, (await median(5, () => timed(`${url}${path}`, headers))).toFixed(1));
      if (rows > pageSize) {
        const middle = Math.floor(rows / pageSize / 2);
        out(`${path} page ${middle}, median ms`, (await median(5, () => timed(`${url}${path}?page=${middle}`, headers))).toFixed(1));
      }
    }

    // SPEC §23: a page of the events of the last ten minutes (of a million, one millisecond apart).
    const since = encodeURIComponent(new Date(Date.now() - 600_000).toISOString());
    out('/api/v2/authentication_events/ by time, first page, median ms', (await median(5, () => timed(`${url}/api/v2/authentication_events/?timestamp__gte=${since}`, admin))).toFixed(1));
    out('/api/v2/activity_stream/ by time, first page, median ms', (await median(5, () => timed(`${url}/api/v2/activity_stream/?timestamp__gte=${since}`, admin))).toFixed(1));

    // Four clients page through sessions while a fifth pings.
    const pages = Math.floor(n / pageSize);
    const paging = await whilePinging(url, async () => {
      await Promise.all(
        [0, 1, 2, 3].map(async (c) => {
          for (let i = 0; i < 10; i++) await timed(`${url}/api/v2/me/sessions/?page=${1 + ((c * 997 + i * 7919) % pages)}`, { Cookie: bulkCookie });
        }),
      );
    });
    out('longest ping while 4 clients page sessions, ms', paging.toFixed(1));

    // End one session by id, then all of them.
    const list = JSON.parse((await request(`${url}/api/v2/users/${userId}/sessions/?page=2`, { headers: admin })).body);
    const one = list.results[0].id as number;
    const endOne = performance.now();
    const ended = await request(`${url}/api/v2/me/sessions/${one}/`, { method: 'DELETE', headers: { ...bulkAuth } });
    out('end one session (DELETE /me/sessions/<id>/), ms', `${(performance.now() - endOne).toFixed(1)} (${ended.status})`);

    let refusedAt = -1;
    let answered = 0;
    const ending = await whilePinging(url, async () => {
      const start = performance.now();
      const res = await request(`${url}/api/v2/users/${userId}/sessions/`, { method: 'DELETE', headers: admin });
      answered = performance.now() - start;
      if (res.status !== 204) throw new Error(`end all: ${res.status}`);
      const me = await request(`${url}/api/v2/me/`, { headers: { Cookie: bulkCookie } });
      refusedAt = me.status;
      await withDatabase(kind, dir, mysql?.url, async (db) => {
        const deadline = Date.now() + 10 * 60_000;
        while (Date.now() < deadline && (await count(db, 'SELECT COUNT(*) AS n FROM revocation_job')) > 0) await sleep(200);
      });
      out('end all: clean-up finished after, s', ((performance.now() - start) / 1000).toFixed(1));
    });
    out('end all (DELETE /users/<id>/sessions/), answer ms', answered.toFixed(1));
    out('end all: the real session at the next request', String(refusedAt));
    out('longest ping while all sessions end, ms', ending.toFixed(1));

    const revokeStart = performance.now();
    const revoked = await request(`${url}/api/v2/users/${userId}/tokens/`, { method: 'DELETE', headers: admin });
    out('revoke all tokens of the user, answer ms', `${(performance.now() - revokeStart).toFixed(1)} (${revoked.status})`);

    out('service peak memory (VmHWM), MB', (peakKb(child.pid!) / 1024).toFixed(0));
    return lines;
  } finally {
    await stop(child);
    await mysql?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function wrk(url: string, headers: Record<string, string>): number {
  const args = ['-t', '1', '-c', '32', '-d', `${WRK_SECONDS}s`];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  const res = spawnSync('wrk', [...args, url], { encoding: 'utf8' });
  if (res.error) throw new Error(`wrk could not run (${res.error.message}); install it with: apt-get install wrk`);
  if (/Non-2xx/.test(res.stdout)) throw new Error(`${url}: non-2xx responses\n${res.stdout}`);
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(res.stdout)?.[1] ?? 0);
}

async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const start = performance.now();
  const res = await request(url, { headers });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.body.slice(0, 200)}`);
  return performance.now() - start;
}

async function median(times: number, f: () => Promise<number>): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < times; i++) values.push(await f());
  values.sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)];
}

/** Runs `work` while pinging every 20 ms; returns the longest ping. */
async function whilePinging(url: string, work: () => Promise<void>): Promise<number> {
  let longest = 0;
  let done = false;
  const pinger = (async () => {
    while (!done) {
      longest = Math.max(longest, await timed(`${url}/api/v2/ping/`, {}));
      await sleep(20);
    }
  })();
  try {
    await work();
  } finally {
    done = true;
    await pinger;
  }
  return longest;
}

/** A connection of the bench's own to the service's database (seeding and polling). */
async function withDatabase<T>(kind: string, dir: string, mysqlUrl: string | undefined, work: (db: SqlRunner) => Promise<T>): Promise<T> {
  if (kind === 'mysql') {
    const conn = await createConnection(mysqlUrl!);
    try {
      return await work({ query: async (sql, params) => (await conn.query(sql, params))[0] });
    } finally {
      await conn.end();
    }
  }
  const db = new Database(join(dir, 'automation.sqlite3'), { timeout: 10000 });
  try {
    return await work({
      query: async (sql, params = []) => {
        const statement = db.prepare(sql);
        return statement.reader ? statement.all(...params) : statement.run(...params);
      },
    });
  } finally {
    db.close();
  }
}

async function count(db: SqlRunner, sql: string): Promise<number> {
  const rows = (await db.query(sql)) as { n: number | string }[];
  return Number(rows[0].n);
}

function events(log: string, name: string): { expired: number; duration_ms: number }[] {
  return log
    .split('\n')
    .filter((l) => l.includes(`"event":"${name}"`))
    .map((l) => JSON.parse(l));
}

function lastEvent(log: string, name: string) {
  return events(log, name).at(-1);
}

function peakKb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
