import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { getDataSourceToken } from '@nestjs/typeorm';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { createTestDatabase } from './support/test-db';
import { runManage, spawnService } from './support/service-process';
import { UsersService } from '../src/users/users.service';
import { NO_REQUEST } from '../src/common/request-context';
import { MIGRATIONS } from '../src/database/migrations';
import { PasswordHistory1765400000000 } from '../src/database/migrations/1765400000000-password-history';

const SETTINGS = '/api/v2/settings/authentication/';
const COMMON = 'This password is too common.';
const USERNAME = 'The password must not contain the username.';
const reuse = (n: number) => `You cannot reuse one of your last ${n} passwords.`;

/** SPEC §22: the password policy beyond AWX's LOCAL_PASSWORD_MIN_*, on every path that sets a local password. */
describe('password policy (SPEC §22, issue 57)', () => {
  let t: TestApp;
  let ds: DataSource;
  const admin = () => basic('admin', ADMIN_PASSWORD);
  const policy = (values: Record<string, unknown>) => t.http().patch(SETTINGS).set('Authorization', admin()).send(values);
  const create = (username: string, password: string) => t.http().post('/api/v2/users/').set('Authorization', admin()).send({ username, password });
  const change = (id: number, body: Record<string, unknown>, auth = admin()) => t.http().patch(`/api/v2/users/${id}/`).set('Authorization', auth).send(body);
  const row = async (id: number) => ((await ds.query('SELECT password, first_name, modified FROM auth_user WHERE id = ?', [id])) as Record<string, unknown>[])[0];
  const historyCount = async (id: number) => Number(((await ds.query('SELECT COUNT(*) AS n FROM password_history WHERE user_id = ?', [id])) as { n: unknown }[])[0].n);
  const logsIn = async (username: string, password: string) => (await t.http().get('/api/v2/me/').set('Authorization', basic(username, password))).status === 200;

  before(async () => {
    t = await startTestApp({ passwordPolicy: 'spec' });
    ds = t.app.get<DataSource>(getDataSourceToken());
  });
  afterEach(async () => {
    await t.http().delete(SETTINGS).set('Authorization', admin()).expect(204);
  });
  after(() => t.close());

  describe('settings', () => {
    it('shows the four settings with the SPEC defaults', async () => {
      const res = await t.http().get(SETTINGS).set('Authorization', admin()).expect(200);
      const { LOCAL_PASSWORD_MAX_LENGTH, LOCAL_PASSWORD_HISTORY, LOCAL_PASSWORD_DENY_COMMON, LOCAL_PASSWORD_DENY_USERNAME } = res.body;
      assert.deepEqual(
        { LOCAL_PASSWORD_MAX_LENGTH, LOCAL_PASSWORD_HISTORY, LOCAL_PASSWORD_DENY_COMMON, LOCAL_PASSWORD_DENY_USERNAME },
        { LOCAL_PASSWORD_MAX_LENGTH: 128, LOCAL_PASSWORD_HISTORY: 0, LOCAL_PASSWORD_DENY_COMMON: true, LOCAL_PASSWORD_DENY_USERNAME: true },
      );
    });

    it('refuses bad values with a 400 naming each key, and stores nothing', async () => {
      const bad: [string, unknown][] = [
        ['LOCAL_PASSWORD_MAX_LENGTH', 0], ['LOCAL_PASSWORD_MAX_LENGTH', 63], ['LOCAL_PASSWORD_MAX_LENGTH', 4097], ['LOCAL_PASSWORD_MAX_LENGTH', 100.5],
        ['LOCAL_PASSWORD_MAX_LENGTH', '128'], ['LOCAL_PASSWORD_HISTORY', -1], ['LOCAL_PASSWORD_HISTORY', 25], ['LOCAL_PASSWORD_HISTORY', null],
        ['LOCAL_PASSWORD_DENY_COMMON', 'yes'], ['LOCAL_PASSWORD_DENY_USERNAME', 1],
      ];
      for (const [key, value] of bad) {
        const res = await policy({ [key]: value, SESSION_COOKIE_AGE: 600 }).expect(400);
        assert.deepEqual(Object.keys(res.body), [key], `${key}=${JSON.stringify(value)}`);
      }
      const all = await policy({ LOCAL_PASSWORD_MAX_LENGTH: 0, LOCAL_PASSWORD_HISTORY: 25, LOCAL_PASSWORD_DENY_COMMON: 'no', LOCAL_PASSWORD_DENY_USERNAME: 'no' }).expect(400);
      assert.deepEqual(Object.keys(all.body).sort(), ['LOCAL_PASSWORD_DENY_COMMON', 'LOCAL_PASSWORD_DENY_USERNAME', 'LOCAL_PASSWORD_HISTORY', 'LOCAL_PASSWORD_MAX_LENGTH']);
      assert.deepEqual(all.body.LOCAL_PASSWORD_MAX_LENGTH, ['Ensure this value is greater than or equal to 64.']);
      const read = await t.http().get(SETTINGS).set('Authorization', admin()).expect(200);
      assert.equal(read.body.SESSION_COOKIE_AGE, 1800, 'nothing stored');
      assert.equal(read.body.LOCAL_PASSWORD_MAX_LENGTH, 128);
      await policy({ LOCAL_PASSWORD_MAX_LENGTH: 64, LOCAL_PASSWORD_HISTORY: 24, LOCAL_PASSWORD_DENY_COMMON: false, LOCAL_PASSWORD_DENY_USERNAME: false }).expect(200);
      await policy({ LOCAL_PASSWORD_MAX_LENGTH: 4096 }).expect(200);
    });

    it('keeps the maximum at or above LOCAL_PASSWORD_MIN_LENGTH, naming whichever of the two the write changes', async () => {
      await policy({ LOCAL_PASSWORD_MIN_LENGTH: 100 }).expect(200);
      const lower = await policy({ LOCAL_PASSWORD_MAX_LENGTH: 64 }).expect(400);
      assert.deepEqual(lower.body, { LOCAL_PASSWORD_MAX_LENGTH: ['Ensure this value is greater than or equal to LOCAL_PASSWORD_MIN_LENGTH (100).'] });
      await policy({ LOCAL_PASSWORD_MIN_LENGTH: 64, LOCAL_PASSWORD_MAX_LENGTH: 64 }).expect(200);
      const raise = await policy({ LOCAL_PASSWORD_MIN_LENGTH: 65 }).expect(400);
      assert.deepEqual(raise.body, { LOCAL_PASSWORD_MIN_LENGTH: ['Ensure this value is less than or equal to LOCAL_PASSWORD_MAX_LENGTH (64).'] });
      const both = await policy({ LOCAL_PASSWORD_MIN_LENGTH: 100, LOCAL_PASSWORD_MAX_LENGTH: 80 }).expect(400);
      assert.deepEqual(Object.keys(both.body), ['LOCAL_PASSWORD_MAX_LENGTH']);
      const read = await t.http().get('/api/v2/settings/all/').set('Authorization', admin()).expect(200);
      assert.deepEqual([read.body.LOCAL_PASSWORD_MIN_LENGTH, read.body.LOCAL_PASSWORD_MAX_LENGTH], [64, 64], 'nothing stored');
      const viaAll = await t.http().patch('/api/v2/settings/all/').set('Authorization', admin()).send({ LOCAL_PASSWORD_MAX_LENGTH: 64, LOCAL_PASSWORD_MIN_LENGTH: 65 }).expect(400);
      assert.deepEqual(Object.keys(viaAll.body), ['LOCAL_PASSWORD_MAX_LENGTH']);
    });
  });

  describe('rules', () => {
    it("caps the length in code points: AWX's message at 128, Django's at any other maximum", async () => {
      const at128 = await create('longer', 'Q7-' + 'x'.repeat(126)).expect(400);
      assert.deepEqual(at128.body, { password: ['Password max length is 128'] });
      await create('longer', '😀'.repeat(128)).expect(201);
      await policy({ LOCAL_PASSWORD_MAX_LENGTH: 64 }).expect(200);
      const at64 = await create('shorter', 'Q7-' + 'x'.repeat(62)).expect(400);
      assert.deepEqual(at64.body, { password: ['Ensure this field has no more than 64 characters.'] });
      await create('shorter', 'Q7-' + 'x'.repeat(61)).expect(201);
      await policy({ LOCAL_PASSWORD_MAX_LENGTH: 4096 }).expect(200);
      const long = 'Q7-' + 'ü'.repeat(4093);
      await create('longest', long).expect(201);
      assert.ok(await logsIn('longest', long));
      const over = await create('overlong', long + 'x').expect(400);
      assert.deepEqual(over.body, { password: ['Ensure this field has no more than 4096 characters.'] });
    });

    it('refuses the deny-list after NFKC and lower-casing, unless LOCAL_PASSWORD_DENY_COMMON is off', async () => {
      for (const password of ['password', 'iloveyou', 'trustno1', 'qwertyuiop', '123456789', 'PassWord', 'ＰＡＳＳＷＯＲＤ']) {
        const res = await create('commoner', password).expect(400);
        assert.deepEqual(res.body, { password: [COMMON] }, password);
      }
      await create('commoner', 'password-and-more-7').expect(201);
      await policy({ LOCAL_PASSWORD_DENY_COMMON: false }).expect(200);
      await create('commoner2', 'trustno1').expect(201);
    });

    it('refuses a password holding the username (NFKC, any case) for names of 3 characters or more, unless off', async () => {
      for (const password of ['my-Alice-pw', 'ALICE-2024!', 'ｘａｌｉｃｅｘ-9']) {
        const res = await create('alice', password).expect(400);
        assert.deepEqual(res.body, { password: [USERNAME] }, password);
      }
      await create('jo', 'jo-jo-pw-123').expect(201);
      const id = (await create('alice', 'Wonderland-7').expect(201)).body.id as number;
      // A rename and a password in one change: the new name is the one checked.
      const renamed = await change(id, { username: 'alicia', password: 'Alicia-new-1' }).expect(400);
      assert.deepEqual(renamed.body, { password: [USERNAME] });
      assert.equal((await t.http().get(`/api/v2/users/${id}/`).set('Authorization', admin()).expect(200)).body.username, 'alice', 'nothing changed');
      await policy({ LOCAL_PASSWORD_DENY_USERNAME: false }).expect(200);
      await create('alfred', 'Alfred-pass-1').expect(201);
    });

    it('lists every broken rule: minimums, maximum, common, username, history last', async () => {
      const id = (await create('dave', 'Starting-pw-1').expect(201)).body.id as number;
      // The current password is one the policy refuses: set before the rules tightened (existing ones are not re-checked).
      await policy({ LOCAL_PASSWORD_DENY_COMMON: false, LOCAL_PASSWORD_DENY_USERNAME: false }).expect(200);
      await change(id, { password: 'dave' }).expect(200);
      await policy({ LOCAL_PASSWORD_DENY_COMMON: true, LOCAL_PASSWORD_DENY_USERNAME: true, LOCAL_PASSWORD_HISTORY: 2,
        LOCAL_PASSWORD_MIN_LENGTH: 10, LOCAL_PASSWORD_MIN_DIGITS: 1, LOCAL_PASSWORD_MIN_UPPER: 1, LOCAL_PASSWORD_MIN_SPECIAL: 1 }).expect(200);
      assert.ok(await logsIn('dave', 'dave'), 'existing passwords are not re-checked');
      const res = await change(id, { password: 'dave' }).expect(400);
      assert.deepEqual(res.body, {
        password: [
          'Password must be at least 10 characters long.',
          'Password must contain at least 1 digits.',
          'Password must contain at least 1 uppercase characters.',
          'Password must contain at least 1 special characters.',
          COMMON,
          USERNAME,
          reuse(2),
        ],
      });
      // The maximum's place: after the minimums, before the username (no deny-list entry is 65 characters long).
      await t.http().delete(SETTINGS).set('Authorization', admin()).expect(204);
      const long = 'Dave-' + 'x'.repeat(70);
      await policy({ LOCAL_PASSWORD_MAX_LENGTH: 4096, LOCAL_PASSWORD_DENY_USERNAME: false }).expect(200);
      await change(id, { password: long }).expect(200);
      await policy({ LOCAL_PASSWORD_MAX_LENGTH: 64, LOCAL_PASSWORD_DENY_USERNAME: true, LOCAL_PASSWORD_MIN_DIGITS: 1, LOCAL_PASSWORD_HISTORY: 1 }).expect(200);
      const ordered = await change(id, { password: long }).expect(400);
      assert.deepEqual(ordered.body.password, ['Password must contain at least 1 digits.', 'Ensure this field has no more than 64 characters.', USERNAME, reuse(1)]);
    });

    it('changes nothing on a 400: no field, no hash, no history row, sessions and login unchanged', async () => {
      const id = (await create('frida', 'Kept-pass-1').expect(201)).body.id as number;
      await policy({ LOCAL_PASSWORD_HISTORY: 3 }).expect(200);
      const before = await row(id);
      const rows = await historyCount(id);
      for (const body of [{ first_name: 'Changed', password: 'password' }, { first_name: 'Changed', password: 'Kept-pass-1' }, { email: 'f@example.com', password: 'x'.repeat(129) }]) {
        await change(id, body).expect(400);
      }
      assert.deepEqual(await row(id), before);
      assert.equal(await historyCount(id), rows);
      assert.ok(await logsIn('frida', 'Kept-pass-1'));
      const refusedCreate = await create('greta', 'password').expect(400);
      assert.deepEqual(refusedCreate.body, { password: [COMMON] });
      const [{ n }] = (await ds.query('SELECT COUNT(*) AS n FROM auth_user WHERE username = ?', ['greta'])) as { n: unknown }[];
      assert.equal(Number(n), 0);
    });
  });

  describe('history', () => {
    it('with N=2 refuses the current and the previous password, accepts the one before', async () => {
      const id = (await create('hilda', 'First-pw-1').expect(201)).body.id as number;
      await policy({ LOCAL_PASSWORD_HISTORY: 2 }).expect(200);
      const current = await change(id, { password: 'First-pw-1' }).expect(400);
      assert.deepEqual(current.body, { password: [reuse(2)] });
      await change(id, { password: 'Second-pw-2' }).expect(200);
      assert.deepEqual((await change(id, { password: 'First-pw-1' }).expect(400)).body, { password: [reuse(2)] });
      assert.deepEqual((await change(id, { password: 'Second-pw-2' }).expect(400)).body, { password: [reuse(2)] });
      await change(id, { password: 'Third-pw-3' }).expect(200);
      await change(id, { password: 'First-pw-1' }).expect(200);
      assert.ok(await logsIn('hilda', 'First-pw-1'));
    });

    it("applies to one's own change with old_password, as to a superuser's", async () => {
      const id = (await create('ingrid', 'Own-pw-1').expect(201)).body.id as number;
      await policy({ LOCAL_PASSWORD_HISTORY: 1 }).expect(200);
      const own = basic('ingrid', 'Own-pw-1');
      const same = await change(id, { password: 'Own-pw-1', old_password: 'Own-pw-1' }, own).expect(400);
      assert.deepEqual(same.body, { password: [reuse(1)] });
      const common = await t.http().put(`/api/v2/users/${id}/`).set('Authorization', own).send({ username: 'ingrid', password: 'iloveyou', old_password: 'Own-pw-1' }).expect(400);
      assert.deepEqual(common.body, { password: [COMMON] });
      await change(id, { password: 'Own-pw-2', old_password: 'Own-pw-1' }, own).expect(200);
      assert.ok(await logsIn('ingrid', 'Own-pw-2'));
    });

    it('keeps the last 24 hashes whatever the setting, so a raised value applies at once', async () => {
      const id = (await create('jonas', 'Pass-00-x').expect(201)).body.id as number;
      const passwords = ['Pass-00-x'];
      for (let i = 1; i <= 25; i++) {
        passwords.push(`Pass-${String(i).padStart(2, '0')}-x`);
        await change(id, { password: passwords[i] }).expect(200);
      }
      assert.equal(await historyCount(id), 24, 'pruned beyond 24');
      await policy({ LOCAL_PASSWORD_HISTORY: 24 }).expect(200);
      // The last 24 are passwords[2..25]: the 24th back is refused, the 25th and 26th back are free again.
      assert.deepEqual((await change(id, { password: passwords[2] }).expect(400)).body, { password: [reuse(24)] });
      assert.deepEqual((await change(id, { password: passwords[25] }).expect(400)).body, { password: [reuse(24)] });
      await change(id, { password: passwords[1] }).expect(200);
      assert.equal(await historyCount(id), 24);
      assert.deepEqual((await change(id, { password: passwords[1] }).expect(400)).body, { password: [reuse(24)] });
    });

    it("counts a user's current hash that has no history row (a user imported from AWX)", async () => {
      const id = (await create('karla', 'Imported-pw-1').expect(201)).body.id as number;
      await ds.query('DELETE FROM password_history WHERE user_id = ?', [id]);
      await policy({ LOCAL_PASSWORD_HISTORY: 1 }).expect(200);
      assert.deepEqual((await change(id, { password: 'Imported-pw-1' }).expect(400)).body, { password: [reuse(1)] });
      await change(id, { password: 'Imported-pw-2' }).expect(200);
      assert.equal(await historyCount(id), 1);
    });

    it('the migration starts each existing local user with its current hash, and no external user', async () => {
      const id = (await create('nora', 'Before-history-1').expect(201)).body.id as number;
      const external = await t.app.get(UsersService).create({ username: 'sso-olga' }, NO_REQUEST, { externalAccount: 'social' });
      // Undone back to before the history table (the migrations after it first), then every one run again.
      for (let i = MIGRATIONS.indexOf(PasswordHistory1765400000000); i < MIGRATIONS.length; i++) await ds.undoLastMigration();
      await ds.runMigrations();
      const [current] = (await ds.query('SELECT password FROM auth_user WHERE id = ?', [id])) as { password: string }[];
      assert.deepEqual(await ds.query('SELECT password FROM password_history WHERE user_id = ?', [id]), [current]);
      assert.equal(await historyCount(external.id), 0);
    });

    it("a user's deletion deletes the user's history", async () => {
      const id = (await create('lotte', 'Short-lived-1').expect(201)).body.id as number;
      assert.equal(await historyCount(id), 1);
      await t.http().delete(`/api/v2/users/${id}/`).set('Authorization', admin()).expect(204);
      assert.equal(await historyCount(id), 0);
    });
  });

  describe('management commands', () => {
    // The CLI reads the settings the API stored in the same database; the env turns the fixtures' exception off.
    const cliEnv = () => ({ DATABASE_URL: t.db.url, DATA_DIR: t.db.dataDir, SECRET_KEY: t.config.secretKey, LOCAL_PASSWORD_DENY_USERNAME: 'true' });

    it('createsuperuser prints every broken rule, exits non-zero and creates no one', async () => {
      const refused = runManage(['createsuperuser', '--username', 'carlos', '--password', 'carlos'], cliEnv());
      assert.equal(refused.status, 1, refused.stderr);
      assert.equal(refused.stderr, `Error: password: ${COMMON} ${USERNAME}\n`);
      const [{ n }] = (await ds.query('SELECT COUNT(*) AS n FROM auth_user WHERE username = ?', ['carlos'])) as { n: unknown }[];
      assert.equal(Number(n), 0);
      const made = runManage(['createsuperuser', '--username', 'carlos', '--password', 'Root-of-all-9'], cliEnv());
      assert.equal(made.status, 0, made.stderr);
      assert.ok(await logsIn('carlos', 'Root-of-all-9'));
    });

    it('changepassword refuses a reused password, exits non-zero and changes nothing', async () => {
      const id = (await create('marta', 'Cli-pw-1').expect(201)).body.id as number;
      await policy({ LOCAL_PASSWORD_HISTORY: 2 }).expect(200);
      const before = await row(id);
      const refused = runManage(['changepassword', 'marta', '--password', 'Cli-pw-1'], cliEnv());
      assert.equal(refused.status, 1, refused.stderr);
      assert.equal(refused.stderr, `Error: password: ${reuse(2)}\n`);
      assert.deepEqual(await row(id), before);
      assert.equal(await historyCount(id), 1);
      const changed = runManage(['changepassword', 'marta', '--password', 'Cli-pw-2'], cliEnv());
      assert.equal(changed.status, 0, changed.stderr);
      assert.equal(await historyCount(id), 2);
      assert.ok(await logsIn('marta', 'Cli-pw-2'));
    });
  });

  it('takes the first start\'s ADMIN_PASSWORD as given, and records it in the history', async () => {
    const db = await createTestDatabase();
    const node = await spawnService({ DATABASE_URL: db.url, DATA_DIR: db.dataDir, ADMIN_PASSWORD: 'password', LOCAL_PASSWORD_DENY_USERNAME: 'true' });
    try {
      const me = await request(node.url).get('/api/v2/me/').set('Authorization', basic('admin', 'password')).expect(200);
      const id = me.body.results[0].id as number;
      const settings = await request(node.url).patch(SETTINGS).set('Authorization', basic('admin', 'password')).send({ LOCAL_PASSWORD_HISTORY: 1, LOCAL_PASSWORD_DENY_COMMON: false }).expect(200);
      assert.equal(settings.body.LOCAL_PASSWORD_HISTORY, 1);
      const same = await request(node.url).patch(`/api/v2/users/${id}/`).set('Authorization', basic('admin', 'password')).send({ password: 'password', old_password: 'password' }).expect(400);
      assert.deepEqual(same.body, { password: [reuse(1)] });
    } finally {
      await node.stop();
      await db.drop();
    }
  });
});
