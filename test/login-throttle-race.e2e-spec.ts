import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { LoginThrottle, ThrottledCheck } from '../src/users/login-throttle.service';
import { cookieValue } from './support/browser-login';
import { registerApp, tokenRequest } from './support/oauth2';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { createTestDatabase, TestDatabase } from './support/test-db';
import { ServiceProcess, spawnServices } from './support/service-process';

/**
 * SPEC §12: however many attempts for one (username, address) race, at most LOGIN_FAILURES_ALLOWED
 * passwords are verified per window, because each attempt is counted before its password is checked.
 * Every request that was not refused with 429 verified a password, so the answers count them; the
 * metric of password verifications must agree.
 */
const ATTEMPTS = 40;
const ALLOWED = 5;

async function verifications(t: TestApp): Promise<number> {
  const res = await t.http().get('/api/v2/metrics/').set('Authorization', basic('admin', ADMIN_PASSWORD)).expect(200);
  return Number(/^svc_password_verifications_total (\d+)/m.exec(res.text)?.[1] ?? NaN);
}

function tally(statuses: number[], refused: number): Record<string, number> {
  const out = { verified: 0, throttled: 0, other: 0 };
  for (const s of statuses) {
    if (s === 429) out.throttled++;
    else if (s === refused) out.verified++;
    else out.other++;
  }
  return out;
}

describe('login throttle under concurrency (SPEC §12)', () => {
  let t: TestApp;
  let clientId: string;
  before(async () => {
    t = await startTestApp({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    await t.settings({ LOGIN_FAILURES_ALLOWED: ALLOWED, LOGIN_FAILURE_WINDOW: 900 });
    for (const name of ['formrace', 'basicrace', 'grantrace', 'mixed']) await t.createUser(name, 'Right-pass-1');
    clientId = (await registerApp(t, basic('admin', ADMIN_PASSWORD), { name: 'race', client_type: 'public', authorization_grant_type: 'password' })).clientId;
    await verifications(t); // the admin's own basic credential is now remembered: later scrapes verify nothing
  });
  after(() => t.close());

  it(`${ATTEMPTS} parallel wrong passwords on the login form: ${ALLOWED} verified, the rest 429`, async () => {
    const agent = t.agent();
    const page = await agent.get('/api/login/');
    const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
    const before = await verifications(t);
    const answers = await Promise.all(
      Array.from({ length: ATTEMPTS }, () =>
        agent.post('/api/login/').set('X-Forwarded-For', '198.51.100.1').set('X-CSRFToken', csrf).type('form').send({ username: 'formrace', password: 'wrong' }),
      ),
    );
    assert.deepEqual(tally(answers.map((a) => a.status), 401), { verified: ALLOWED, throttled: ATTEMPTS - ALLOWED, other: 0 });
    assert.equal((await verifications(t)) - before, ALLOWED);
  });

  it(`${ATTEMPTS} parallel wrong basic credentials: ${ALLOWED} verified, the rest 429`, async () => {
    const before = await verifications(t);
    const answers = await Promise.all(
      Array.from({ length: ATTEMPTS }, () => t.http().get('/api/v2/me/').set('X-Forwarded-For', '198.51.100.2').set('Authorization', basic('basicrace', 'wrong'))),
    );
    assert.deepEqual(tally(answers.map((a) => a.status), 401), { verified: ALLOWED, throttled: ATTEMPTS - ALLOWED, other: 0 });
    assert.equal((await verifications(t)) - before, ALLOWED);
  });

  it(`${ATTEMPTS} parallel wrong passwords on the password grant: ${ALLOWED} verified, the rest 429`, async () => {
    const before = await verifications(t);
    const answers = await Promise.all(
      Array.from({ length: ATTEMPTS }, () =>
        tokenRequest(t, { grant_type: 'password', username: 'grantrace', password: 'wrong' }, { clientId }).set('X-Forwarded-For', '198.51.100.3'),
      ),
    );
    assert.deepEqual(tally(answers.map((a) => a.status), 400), { verified: ALLOWED, throttled: ATTEMPTS - ALLOWED, other: 0 });
    assert.equal((await verifications(t)) - before, ALLOWED);
  });

  it('unknown usernames race the same way', async () => {
    const answers = await Promise.all(
      Array.from({ length: ATTEMPTS }, () => t.http().get('/api/v2/me/').set('X-Forwarded-For', '198.51.100.4').set('Authorization', basic('nobody-here', 'wrong'))),
    );
    assert.deepEqual(tally(answers.map((a) => a.status), 401), { verified: ALLOWED, throttled: ATTEMPTS - ALLOWED, other: 0 });
  });

  it('a success forgives the failures before it, not those of attempts beside it', async () => {
    const throttle = t.app.get(LoginThrottle);
    const check: ThrottledCheck = { pairs: [['mixed', '198.51.100.5']], rightForgives: true };
    const wrong = () => throttle.attempt(check, async () => false, (right) => (right ? 'right' : 'wrong'));
    await wrong(); // a failure before the success
    const success = inFlight(throttle, check);
    await success.checking;
    const beside = [inFlight(throttle, check), inFlight(throttle, check)];
    await Promise.all(beside.map((b) => b.checking));
    for (const attempt of beside) await attempt.finish(false);
    await success.finish(true);
    // The two failures beside the success stay counted: three more attempts, then 429.
    for (let i = 0; i < 3; i++) await wrong();
    await assert.rejects(wrong(), (err: Error) => err.name === 'Throttled');
  });

  it(`${ATTEMPTS} parallel right passwords from one address all succeed (successful logins are never refused)`, async () => {
    const answers = await Promise.all(
      Array.from({ length: ATTEMPTS }, () =>
        tokenRequest(t, { grant_type: 'password', username: 'mixed', password: 'Right-pass-1' }, { clientId }).set('X-Forwarded-For', '198.51.100.7'),
      ),
    );
    assert.deepEqual(answers.map((a) => a.status), Array(ATTEMPTS).fill(200));
  });
});

describe('login throttle across two service processes (SPEC §12, §18)', () => {
  let db: TestDatabase;
  let nodes: ServiceProcess[];
  before(async () => {
    db = await createTestDatabase();
    nodes = await spawnServices(2, {
      DATABASE_URL: db.url, DATA_DIR: db.dataDir, SECRET_KEY: 'throttle-race-secret-key-0123456789abcdefgh', ADMIN_PASSWORD: 'Two-node-admin-1',
      LOGIN_FAILURES_ALLOWED: String(ALLOWED),
    });
  });
  after(async () => {
    await Promise.all((nodes ?? []).map((n) => n.stop()));
    await db.drop();
  });

  it(`${ATTEMPTS} wrong basic credentials split over two nodes: ${ALLOWED} verified, the rest 429`, async () => {
    const answers = await Promise.all(
      Array.from({ length: ATTEMPTS }, (_, i) => request(nodes[i % 2].url).get('/api/v2/me/').set('Authorization', basic('admin', 'wrong'))),
    );
    assert.deepEqual(tally(answers.map((a) => a.status), 401), { verified: ALLOWED, throttled: ATTEMPTS - ALLOWED, other: 0 });
  });
});

/** An attempt held in flight: `checking` once its pair is counted and its check runs; `finish` gives the verdict. */
function inFlight(throttle: LoginThrottle, check: ThrottledCheck): { checking: Promise<void>; finish(right: boolean): Promise<boolean> } {
  let started!: () => void;
  let decide!: (right: boolean) => void;
  const checking = new Promise<void>((resolve) => (started = resolve));
  const verdict = new Promise<boolean>((resolve) => (decide = resolve));
  const done = throttle.attempt(check, () => (started(), verdict), (right) => (right ? 'right' : 'wrong'));
  return { checking, finish: (right) => (decide(right), done) };
}
