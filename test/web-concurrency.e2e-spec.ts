// @galera: npm test runs this file again on a 3-member Galera cluster (scripts/galera-files.sh)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { basic } from './support/test-app';
import { createTestDatabase, TEST_DB, TestDatabase } from './support/test-db';
import { ServiceProcess, spawnService } from './support/service-process';

/** Issue 14: WEB_CONCURRENCY=N server processes sharing one port (node:cluster). */
const ADMIN_PASSWORD = 'Workers-admin-pass-1';
const MAIN = join(__dirname, '..', 'src', 'main.js');

/** The pids whose parent is `pid` (the primary's workers). */
function children(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      /* the process ended meanwhile */
    }
  }
  return found.sort((a, b) => a - b);
}

async function until<T>(what: string, probe: () => T | undefined | false, ms = 20000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('WEB_CONCURRENCY on SQLite', { skip: TEST_DB !== 'sqlite' ? 'the refusal is an SQLite matter' : false }, () => {
  it('refuses a value above 1 at start with a message saying why', async () => {
    const db = await createTestDatabase();
    try {
      const res = spawnSync(process.execPath, [MAIN], {
        env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', DATABASE_URL: db.url, DATA_DIR: db.dataDir, WEB_CONCURRENCY: '2' },
        encoding: 'utf8',
        timeout: 30000,
      });
      assert.equal(res.status, 2, res.stderr);
      assert.match(res.stderr, /WEB_CONCURRENCY=2 needs MySQL or MariaDB/);
      assert.match(res.stderr, /session limit/);
    } finally {
      await db.drop();
    }
  });
});

describe('WEB_CONCURRENCY=2 on MySQL', { skip: TEST_DB !== 'mysql' ? 'several processes need MySQL/MariaDB' : false }, () => {
  let db: TestDatabase;
  let service: ServiceProcess;
  const admin = basic('admin', ADMIN_PASSWORD);

  before(async () => {
    db = await createTestDatabase();
    service = await spawnService({ DATABASE_URL: db.url, DATA_DIR: db.dataDir, ADMIN_PASSWORD, WEB_CONCURRENCY: '2', SECRET_KEY: 'workers-secret-key-0123456789-abcdefghijklmn' });
    await until('both workers', () => service.output.join('').includes('"event":"web_workers_started"') && children(service.child.pid!).length === 2);
    await until('the second worker listening', () => (service.output.join('').match(/"event":"listening"/g) ?? []).length >= 2);
  });
  after(async () => {
    await service?.stop();
    await db?.drop();
  });

  it('serves from two worker processes on one port', async () => {
    assert.equal(children(service.child.pid!).length, 2);
    const answers = await Promise.all(Array.from({ length: 20 }, () => request(service.url).get('/api/v2/me/').set('Authorization', admin)));
    for (const a of answers) assert.equal(a.status, 200);
  });

  it('keeps every guarantee across workers: 30 racing logins with SESSIONS_PER_USER=2 leave 2, a revoked token is refused at once', async () => {
    await request(service.url).patch('/api/v2/settings/authentication/').set('Authorization', admin).send({ SESSIONS_PER_USER: 2 }).expect(200);
    // Each worker reads the limit at its next settings refresh: new connections go to the workers in turn,
    // so twenty reads in a row that all show it have asked every worker (bounded: a worker that never reads it fails).
    let inARow = 0;
    for (let i = 0; i < 2000 && inARow < 20; i++) {
      const read = await request(service.url).get('/api/v2/settings/authentication/').set('Authorization', admin).expect(200);
      inARow = read.body.SESSIONS_PER_USER === 2 ? inARow + 1 : 0;
    }
    assert.equal(inARow, 20, 'every worker reads SESSIONS_PER_USER=2');
    const logins = await Promise.all(
      Array.from({ length: 30 }, () => {
        const csrf = randomBytes(32).toString('base64url');
        return request(service.url).post('/api/login/').set('Cookie', `csrftoken=${csrf}`).set('X-CSRFToken', csrf).type('form').send({ username: 'admin', password: ADMIN_PASSWORD });
      }),
    );
    for (const l of logins) assert.equal(l.status, 302, l.text);
    const live = await request(service.url).get('/api/v2/me/sessions/').set('Authorization', admin).expect(200);
    assert.equal(live.body.count, 2);
    for (let i = 0; i < 10; i++) {
      const token = (await request(service.url).post('/api/v2/tokens/').set('Authorization', admin).send({ scope: 'write' }).expect(201)).body;
      await request(service.url).get('/api/v2/me/').set('Authorization', `Bearer ${token.token}`).expect(200);
      await request(service.url).delete(`/api/v2/tokens/${token.id}/`).set('Authorization', admin).expect(204);
      await request(service.url).get('/api/v2/me/').set('Authorization', `Bearer ${token.token}`).expect(401);
    }
  });

  it('replaces a worker that crashes, and answers on the new one', async () => {
    const [victim, survivor] = children(service.child.pid!);
    process.kill(victim, 'SIGKILL');
    const replaced = await until('a replacement worker', () => {
      const now = children(service.child.pid!);
      return now.length === 2 && !now.includes(victim) && now.includes(survivor) ? now : undefined;
    });
    assert.equal(replaced.length, 2);
    await until('the replacement listening', () => (service.output.join('').match(/"event":"listening"/g) ?? []).length >= 3);
    for (let i = 0; i < 10; i++) await request(service.url).get('/api/v2/ping/').timeout(5000).expect(200);
    assert.match(service.output.join(''), /"event":"web_worker_exited"/);
  });

  it('stops every worker and exits 0 on SIGTERM', async () => {
    const workers = children(service.child.pid!);
    const exited = new Promise<number | null>((resolve) => service.child.once('exit', (code) => resolve(code)));
    service.child.kill('SIGTERM');
    assert.equal(await exited, 0);
    for (const pid of workers) assert.ok(!existsProcess(pid), `worker ${pid} is still running`);
  });
});

function existsProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
