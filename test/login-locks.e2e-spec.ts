import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserLogin } from './support/browser-login';
import { runManage } from './support/service-process';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { PreparedStatements } from '../src/database/prepared-statements';
import { LoginThrottle } from '../src/users/login-throttle.service';

const UNLOCK_MESSAGE = 'Too many failed login attempts. Ask an administrator to unlock this account.';
const LOCK_FIELDS = ['id', 'type', 'url', 'username', 'user', 'ip_address', 'failures', 'first_failure', 'last_failure', 'locked', 'locked_until'];

/**
 * SPEC §22's lockout with unlock on §12's (username, client address) pairs, through HTTP: the three
 * LOGIN_LOCKOUT_DURATION modes, the break-glass superuser's cap, `login_locks` and its permissions, unlocking by
 * the API and by `unlock_user`. Behind a trusted proxy, so X-Forwarded-For names each attempt's address; time
 * moves by the test app's clock.
 */
describe('lockout with unlock (SPEC §22)', () => {
  let t: TestApp;
  let aliceId: number;
  const admin = () => basic('admin', ADMIN_PASSWORD);
  const me = (name: string, password: string, ip: string) => t.http().get('/api/v2/me/').set('X-Forwarded-For', ip).set('Authorization', basic(name, password));
  const fail = async (name: string, ip: string, times = 5) => {
    for (let i = 0; i < times; i++) await me(name, 'wrong-password', ip).expect(401);
  };
  const setDuration = (value: unknown) => t.http().patch('/api/v2/settings/authentication/').set('Authorization', admin()).send({ LOGIN_LOCKOUT_DURATION: value });
  const locks = (query = '', who = admin()) => t.http().get(`/api/v2/login_locks/${query}`).set('Authorization', who);
  const lockOf = async (ip: string) => ((await locks(`?ip_address=${ip}`).expect(200)).body.results as Record<string, unknown>[])[0];
  const manage = (args: string[]) => runManage(args, { DATABASE_URL: t.db.url, DATA_DIR: t.db.dataDir, SECRET_KEY: t.config.secretKey });

  before(async () => {
    t = await startTestApp({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    aliceId = await t.createUser('alice', 'Alice-pass-1');
    await t.createUser('aud', 'Auditor-pass-1', { is_system_auditor: true });
    await t.createUser('pat', 'Plain-pass-1');
    await t.createUser('root2', 'Root2-pass-1', { is_superuser: true });
  });
  after(() => t?.close());

  it('refuses a LOGIN_LOCKOUT_DURATION other than 0, -1 or 60–31536000 with a 400 naming it, storing nothing', async () => {
    for (const bad of [1, 59, -2, 31536001, 1.5, '60', null, true]) {
      const res = await setDuration(bad).expect(400);
      assert.deepEqual(Object.keys(res.body), ['LOGIN_LOCKOUT_DURATION'], JSON.stringify(bad));
    }
    const stored = await t.http().get('/api/v2/settings/authentication/').set('Authorization', admin()).expect(200);
    assert.equal(stored.body.LOGIN_LOCKOUT_DURATION, 0);
    for (const good of [60, 31536000, -1, 0]) await setDuration(good).expect(200);
  });

  it('0: the pair is locked until its window ends (Retry-After), another address is never refused, and the lock is listed', async () => {
    await fail('alice', '203.0.113.1');
    const locked = await me('alice', 'Alice-pass-1', '203.0.113.1').expect(429);
    const wait = Number(locked.headers['retry-after']);
    assert.ok(wait >= 1 && wait <= 900, String(wait));
    assert.deepEqual(locked.body, { detail: `Too many failed login attempts. Try again in ${wait} seconds.` });
    await me('alice', 'Alice-pass-1', '203.0.113.2').expect(200);

    const lock = await lockOf('203.0.113.1');
    assert.deepEqual(Object.keys(lock), LOCK_FIELDS);
    assert.equal(lock.type, 'login_lock');
    assert.equal(lock.url, `/api/v2/login_locks/${lock.id}/`);
    assert.equal(lock.username, 'alice');
    assert.equal(lock.user, aliceId);
    assert.equal(lock.failures, 5);
    assert.equal(lock.locked, true);
    assert.ok(Date.parse(lock.locked_until as string) > Date.parse(lock.last_failure as string));
    assert.ok(Date.parse(lock.last_failure as string) >= Date.parse(lock.first_failure as string));
    assert.deepEqual((await t.http().get(`/api/v2/login_locks/${lock.id}/`).set('Authorization', admin()).expect(200)).body, lock);
    assert.equal((await t.http().get(`/api/v2/users/${aliceId}/`).set('Authorization', admin()).expect(200)).body.login_locked, true);

    t.clock.advance(901);
    await me('alice', 'Alice-pass-1', '203.0.113.1').expect(200);
    assert.equal((await t.http().get(`/api/v2/users/${aliceId}/`).set('Authorization', admin()).expect(200)).body.login_locked, false);
  });

  it('N longer than the window: locked N seconds from the locking failure, then the pair starts afresh', async () => {
    await setDuration(1800).expect(200);
    await fail('alice', '203.0.113.3');
    const first = await me('alice', 'Alice-pass-1', '203.0.113.3').expect(429);
    assert.ok(Number(first.headers['retry-after']) > 900, first.headers['retry-after']);
    t.clock.advance(901);
    const later = await me('alice', 'Alice-pass-1', '203.0.113.3').expect(429);
    assert.ok(Number(later.headers['retry-after']) <= 899, later.headers['retry-after']);
    assert.equal((await lockOf('203.0.113.3')).locked, true);
    t.clock.advance(900);
    await me('alice', 'wrong-password', '203.0.113.3').expect(401);
    const fresh = await lockOf('203.0.113.3');
    assert.equal(fresh.failures, 1);
    assert.equal(fresh.locked, false);
    assert.equal(fresh.locked_until, null);
    await me('alice', 'Alice-pass-1', '203.0.113.3').expect(200);
  });

  it('N shorter than the window: the lock ends after N seconds and resets the pair: a new window of failures', async () => {
    await setDuration(60).expect(200);
    await fail('alice', '203.0.113.4');
    const locked = await me('alice', 'Alice-pass-1', '203.0.113.4').expect(429);
    assert.ok(Number(locked.headers['retry-after']) <= 60, locked.headers['retry-after']);
    // A longer duration set now does not lengthen the lock already taken.
    await setDuration(3600).expect(200);
    t.clock.advance(61);
    await fail('alice', '203.0.113.4', 4);
    assert.equal((await lockOf('203.0.113.4')).locked, false);
    await fail('alice', '203.0.113.4', 1);
    const again = await me('alice', 'Alice-pass-1', '203.0.113.4').expect(429);
    assert.ok(Number(again.headers['retry-after']) > 60, again.headers['retry-after']);
    t.clock.advance(3601);
    await me('alice', 'Alice-pass-1', '203.0.113.4').expect(200);
  });

  it('-1: locked until an administrator unlocks it, without Retry-After, through years and the sweep; DELETE unlocks it', async () => {
    await setDuration(-1).expect(200);
    await fail('alice', '203.0.113.5');
    const locked = await me('alice', 'Alice-pass-1', '203.0.113.5').expect(429);
    assert.deepEqual(locked.body, { detail: UNLOCK_MESSAGE });
    assert.equal(locked.headers['retry-after'], undefined);
    await me('alice', 'Alice-pass-1', '203.0.113.6').expect(200);
    t.clock.advance(2 * 31536000);
    await t.app.get(LoginThrottle).sweep();
    await me('alice', 'Alice-pass-1', '203.0.113.5').expect(429);
    const lock = await lockOf('203.0.113.5');
    assert.equal(lock.locked, true);
    assert.equal(lock.locked_until, null);

    // Filters (SPEC §19) on what the list shows.
    const ids = async (query: string) => ((await locks(query).expect(200)).body.results as { id: number }[]).map((r) => r.id);
    assert.deepEqual(await ids(`?locked=true&user=${aliceId}`), [lock.id]);
    assert.deepEqual(await ids('?username=alice&locked_until__isnull=true&ip_address__startswith=203.0.113.5'), [lock.id]);
    assert.deepEqual(await ids('?locked=false&ip_address=203.0.113.5'), []);
    assert.deepEqual((await t.http().get(`/api/v2/users/${aliceId}/login_locks/`).set('Authorization', admin()).expect(200)).body.results.map((r: { id: number }) => r.id), [lock.id]);

    // Readers and unlockers.
    await locks('', basic('aud', 'Auditor-pass-1')).expect(200);
    await t.http().get(`/api/v2/login_locks/${lock.id}/`).set('Authorization', basic('aud', 'Auditor-pass-1')).expect(200);
    await t.http().delete(`/api/v2/login_locks/${lock.id}/`).set('Authorization', basic('aud', 'Auditor-pass-1')).expect(403);
    await t.http().delete(`/api/v2/users/${aliceId}/login_locks/`).set('Authorization', basic('aud', 'Auditor-pass-1')).expect(403);
    await locks('', basic('pat', 'Plain-pass-1')).expect(403);
    await t.http().get(`/api/v2/login_locks/${lock.id}/`).set('Authorization', basic('pat', 'Plain-pass-1')).expect(403);
    await t.http().get(`/api/v2/users/${aliceId}/login_locks/`).set('Authorization', basic('pat', 'Plain-pass-1')).expect(403);
    await t.http().delete(`/api/v2/login_locks/${lock.id}/`).set('Authorization', basic('pat', 'Plain-pass-1')).expect(403);
    await t.http().delete('/api/v2/login_locks/999999/').set('Authorization', admin()).expect(404);
    await t.http().get('/api/v2/login_locks/999999/').set('Authorization', admin()).expect(404);

    await t.http().delete(`/api/v2/login_locks/${lock.id}/`).set('Authorization', admin()).expect(204);
    await t.http().get(`/api/v2/login_locks/${lock.id}/`).set('Authorization', admin()).expect(404);
    await me('alice', 'Alice-pass-1', '203.0.113.5').expect(200);
    assert.equal((await t.http().get(`/api/v2/users/${aliceId}/`).set('Authorization', admin()).expect(200)).body.login_locked, false);
  });

  it("DELETE /api/v2/users/N/login_locks/ unlocks every pair of the user's name", async () => {
    await fail('alice', '203.0.113.7');
    await fail('alice', '203.0.113.8');
    await me('alice', 'Alice-pass-1', '203.0.113.7').expect(429);
    await t.http().delete(`/api/v2/users/${aliceId}/login_locks/`).set('Authorization', admin()).expect(204);
    await me('alice', 'Alice-pass-1', '203.0.113.7').expect(200);
    await me('alice', 'Alice-pass-1', '203.0.113.8').expect(200);
    await t.http().delete('/api/v2/users/999999/login_locks/').set('Authorization', admin()).expect(404);
  });

  it('unlock_user unlocks one address or all, counts the locked ones, and names a name nobody holds', async () => {
    await fail('alice', '203.0.113.9');
    await fail('alice', '203.0.113.10');
    await fail('ghost', '203.0.113.9');
    const one = manage(['unlock_user', '--user', 'alice', '--address', '203.0.113.9']);
    assert.equal(one.status, 0, one.stderr);
    assert.equal(one.stdout.trim(), 'Unlocked 1 address(es) for alice.');
    await me('alice', 'Alice-pass-1', '203.0.113.9').expect(200);
    assert.deepEqual(await me('alice', 'Alice-pass-1', '203.0.113.10').expect(429).then((r) => r.body), { detail: UNLOCK_MESSAGE });
    const all = manage(['unlock_user', '--user', 'alice']);
    assert.equal(all.stdout.trim(), 'Unlocked 1 address(es) for alice.', all.stderr);
    await me('alice', 'Alice-pass-1', '203.0.113.10').expect(200);
    const none = manage(['unlock_user', '--user', 'alice']);
    assert.equal(none.status, 0, none.stderr);
    assert.equal(none.stdout.trim(), 'Unlocked 0 address(es) for alice.');
    // A name no user holds but a pair does (a directory person who never logged in).
    const ghost = manage(['unlock_user', '--user', 'ghost']);
    assert.equal(ghost.stdout.trim(), 'Unlocked 1 address(es) for ghost.', ghost.stderr);
    const nobody = manage(['unlock_user', '--user', 'nobody-at-all']);
    assert.notEqual(nobody.status, 0);
    assert.match(nobody.stderr + nobody.stdout, /nobody-at-all/);
  });

  it('caps the break-glass superuser (the lowest-id active local superuser) at LOGIN_FAILURE_WINDOW, not another superuser', async () => {
    await fail('admin', '203.0.113.11');
    const capped = await me('admin', ADMIN_PASSWORD, '203.0.113.11').expect(429);
    const wait = Number(capped.headers['retry-after']);
    assert.ok(wait >= 1 && wait <= 900, String(wait));
    await fail('root2', '203.0.113.11');
    assert.deepEqual((await me('root2', 'Root2-pass-1', '203.0.113.11').expect(429)).body, { detail: UNLOCK_MESSAGE });
    t.clock.advance(901);
    await me('admin', ADMIN_PASSWORD, '203.0.113.11').expect(200);
    await me('root2', 'Root2-pass-1', '203.0.113.11').expect(429);
  });

  it('one pair whatever the case of the name (Alice, ALICE, aLice), shown in its first failure\'s spelling', async () => {
    await setDuration(0).expect(200);
    for (const spelling of ['Alice', 'ALICE', 'aLice', 'alice', 'ALICE']) await me(spelling, 'wrong-password', '203.0.113.12').expect(401);
    await me('alice', 'Alice-pass-1', '203.0.113.12').expect(429);
    const listed = (await locks('?ip_address=203.0.113.12').expect(200)).body;
    assert.equal(listed.count, 1);
    assert.equal(listed.results[0].username, 'Alice');
    assert.equal(listed.results[0].user, aliceId);
    assert.equal(listed.results[0].failures, 5);
    await me('alice', 'Alice-pass-1', '203.0.113.13').expect(200);
    const run = manage(['unlock_user', '--user', 'ALICE', '--address', '203.0.113.12']);
    assert.equal(run.stdout.trim(), 'Unlocked 1 address(es) for ALICE.', run.stderr);
    await me('alice', 'Alice-pass-1', '203.0.113.12').expect(200);
  });

  it('/api/v2/me/ shows login_locked and break_glass from each front door (session, bearer, basic) as /users/N/ does', async () => {
    await setDuration(0).expect(200);
    const patId = (await t.http().get('/api/v2/users/?username=pat').set('Authorization', admin()).expect(200)).body.results[0].id as number;
    const { agent } = await browserLogin(t, 'pat', 'Plain-pass-1', { headers: { 'X-Forwarded-For': '198.51.100.7' } });
    const token = (await t.http().post('/api/v2/tokens/').set('X-Forwarded-For', '198.51.100.7').set('Authorization', basic('pat', 'Plain-pass-1')).send({}).expect(201)).body.token as string;
    const facts = async () => {
      const views = [
        (await agent.get('/api/v2/me/').set('X-Forwarded-For', '198.51.100.7').expect(200)).body.results[0],
        (await t.http().get('/api/v2/me/').set('X-Forwarded-For', '198.51.100.7').set('Authorization', `Bearer ${token}`).expect(200)).body.results[0],
        (await me('pat', 'Plain-pass-1', '198.51.100.8').expect(200)).body.results[0],
        (await t.http().get(`/api/v2/users/${patId}/`).set('Authorization', admin()).expect(200)).body,
      ] as Record<string, unknown>[];
      return views.map((v) => `${v.login_locked}/${v.break_glass}`);
    };
    assert.deepEqual(await facts(), Array(4).fill('false/false'));
    // The front door's row settles both facts: /me/ asks the database nothing more than a bearer token's lookup.
    const lookups = async () => {
      const before = t.app.get(PreparedStatements).lookupCounts().lookups;
      await t.http().get('/api/v2/me/').set('X-Forwarded-For', '198.51.100.7').set('Authorization', `Bearer ${token}`).expect(200);
      return t.app.get(PreparedStatements).lookupCounts().lookups - before;
    };
    assert.equal(await lookups(), 1);
    await fail('pat', '203.0.113.50', 1); // a failure counted, not a lock: the facts are asked for
    assert.equal(await lookups(), 2);
    assert.deepEqual(await facts(), Array(4).fill('false/false'));
    await fail('pat', '203.0.113.50', 4);
    assert.deepEqual(await facts(), Array(4).fill('true/false'));
    await t.http().delete(`/api/v2/users/${patId}/login_locks/`).set('Authorization', admin()).expect(204);
    assert.deepEqual(await facts(), Array(4).fill('false/false'));

    const meAs = async (name: string, password: string) => (await me(name, password, '198.51.100.9').expect(200)).body.results[0].break_glass;
    assert.deepEqual([await meAs('admin', ADMIN_PASSWORD), await meAs('root2', 'Root2-pass-1')], [true, false]);
    await t.settings({ BREAK_GLASS_USERNAME: 'ROOT2' });
    try {
      assert.deepEqual([await meAs('admin', ADMIN_PASSWORD), await meAs('root2', 'Root2-pass-1')], [false, true]);
    } finally {
      await t.settings({ BREAK_GLASS_USERNAME: '' });
    }
  });

  it('lists only password pairs: the root of the API names the list', async () => {
    const root = await t.http().get('/api/v2/').expect(200);
    assert.equal(root.body.login_locks, '/api/v2/login_locks/');
    const all = (await locks('?page_size=200').expect(200)).body.results as { username: string }[];
    assert.ok(all.every((r) => !r.username.startsWith('mfa:') && !r.username.includes(' ')), JSON.stringify(all));
  });
});
