import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { basic } from './support/test-app';
import { createTestDatabase, TestDatabase } from './support/test-db';
import { runManage, spawnService, ServiceProcess } from './support/service-process';
import { settingsRefreshed } from './support/settings-refresh';

const ROOT = resolve(__dirname, '..', '..');

/** What npm needs to run the project's scripts: this environment (PATH, HOME, npm's own) and the test's. */
function npmEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', ...extra };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

describe('management commands (SPEC §11) and first start (SPEC §0)', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let node: ServiceProcess;
  before(async () => {
    db = await createTestDatabase();
    env = { DATABASE_URL: db.url, DATA_DIR: db.dataDir };
    // No ADMIN_PASSWORD and no SECRET_KEY: the first start generates both.
    node = await spawnService(env, { mergeOutput: true });
  });
  after(async () => {
    await node?.stop();
    await db.drop();
  });

  it('first start creates the superuser with a generated password printed once', async () => {
    const out = node.output.join('');
    const match = /Created superuser "admin" with generated password: (\S+)/.exec(out);
    assert.ok(match, out);
    assert.ok(match[1].length >= 20);
    await request(node.url).get('/api/v2/me/').set('Authorization', basic('admin', match[1])).expect(200);
    await request(node.url).get('/api/v2/me/').set('Authorization', basic('admin', 'admin')).expect(401);
    // the password is not in the JSON log stream
    const jsonLines = out.split('\n').filter((l) => l.startsWith('{'));
    assert.ok(!jsonLines.some((l) => l.includes(match[1])));
  });

  it('the first start shows its banner first: where it listens, where to log in, the password (issue 34)', () => {
    const lines = node.output.join('').split('\n').filter((l) => l.trim() !== '');
    const port = new URL(node.url).port;
    assert.match(lines[0], new RegExp(`^Automation Service \\d+\\.\\d+\\.\\d+ is listening on http://127\\.0\\.0\\.1:${port}/$`), lines.slice(0, 5).join('\n'));
    assert.equal(lines[1], `  log in at http://127.0.0.1:${port}/api/login/ (API: http://127.0.0.1:${port}/api/v2/)`);
    assert.match(lines[2], /^ {2}Created superuser "admin" with generated password: \S{20,}$/);
    // Nest's narration (a line per module and route) is debug: at info the JSON stream is a few events.
    const json = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; logger?: string; event?: string });
    assert.deepEqual(json.filter((l) => ['RouterExplorer', 'RoutesResolver', 'InstanceLoader'].includes(l.logger ?? '')), []);
    assert.ok(json.length <= 5, `${json.length} JSON lines at start: ${JSON.stringify(json)}`);
    assert.ok(json.some((l) => l.event === 'listening'));
  });

  it('a second start does not create another superuser or print a password', async () => {
    const second = await spawnService(env);
    try {
      assert.doesNotMatch(second.output.join(''), /generated password/);
    } finally {
      await second.stop();
    }
  });

  it('introduces itself as automation-manage (the bin name) in its help and its errors', async () => {
    const help = runManage(['--help'], env);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: automation-manage \[options\] \[command\]/);
    const unknown = runManage(['no_such_command'], env);
    assert.equal(unknown.status, 1);
    assert.doesNotMatch(unknown.stdout + unknown.stderr, /\bmain\b/);
  });

  it('createsuperuser creates a working superuser; duplicates fail with one line and exit 1', async () => {
    const ok = runManage(['createsuperuser', '--username', 'root2', '--email', 'r@example.com', '--password', 'Root2-pass-1'], env);
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /Superuser "root2" created/);
    const me = await request(node.url).get('/api/v2/me/').set('Authorization', basic('root2', 'Root2-pass-1')).expect(200);
    assert.equal(me.body.results[0].is_superuser, true);
    assert.equal(me.body.results[0].email, 'r@example.com');
    const dup = runManage(['createsuperuser', '--username', 'root2', '--password', 'x'], env);
    assert.equal(dup.status, 1);
    assert.equal(dup.stderr.trim().split('\n').length, 1);
    assert.match(dup.stderr, /already exists/);
  });

  it('createsuperuser takes the password from MANAGE_PASSWORD, and refuses to run without one', async () => {
    const ok = runManage(['createsuperuser', '--username', 'root3'], { ...env, MANAGE_PASSWORD: 'Root3-pass-1' });
    assert.equal(ok.status, 0, ok.stderr);
    await request(node.url).get('/api/v2/me/').set('Authorization', basic('root3', 'Root3-pass-1')).expect(200);
    const none = runManage(['createsuperuser', '--username', 'root4'], env);
    assert.equal(none.status, 1);
    assert.match(none.stderr, /No password given/);
  });

  it('changepassword changes the password; an unknown user fails', async () => {
    const ok = runManage(['changepassword', 'root2', '--password', 'Root2-pass-2'], env);
    assert.equal(ok.status, 0, ok.stderr);
    await request(node.url).get('/api/v2/me/').set('Authorization', basic('root2', 'Root2-pass-1')).expect(401);
    await request(node.url).get('/api/v2/me/').set('Authorization', basic('root2', 'Root2-pass-2')).expect(200);
    const missing = runManage(['changepassword', 'ghost', '--password', 'x'], env);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /does not exist/);
  });

  it('enable_local_authentication --disable / --enable flips DISABLE_LOCAL_AUTH for the running node', async () => {
    const creds = basic('root2', 'Root2-pass-2');
    // The node's refreshes are counted anonymously: every local credential is what is being switched off.
    await request(node.url).patch('/api/v2/settings/authentication/').set('Authorization', creds).send({ ALLOW_METRICS_FOR_ANONYMOUS_USERS: true }).expect(200);
    assert.equal(runManage(['enable_local_authentication', '--disable'], env).status, 0);
    await settingsRefreshed(node.url, '');
    await request(node.url).get('/api/v2/me/').set('Authorization', creds).expect(401);
    assert.equal(runManage(['enable_local_authentication', '--enable'], env).status, 0);
    await settingsRefreshed(node.url, '');
    await request(node.url).get('/api/v2/me/').set('Authorization', creds).expect(200);
    await request(node.url).patch('/api/v2/settings/authentication/').set('Authorization', creds).send({ ALLOW_METRICS_FOR_ANONYMOUS_USERS: false }).expect(200);
    const neither = runManage(['enable_local_authentication'], env);
    assert.equal(neither.status, 1);
    const both = runManage(['enable_local_authentication', '--enable', '--disable'], env);
    assert.equal(both.status, 1);
  });

  it('an unknown command exits non-zero', () => {
    assert.notEqual(runManage(['no_such_command'], env).status, 0);
  });

  it('answers --version, shows its help with no command, and speaks one error style (issue 34)', () => {
    const version = runManage(['--version'], env);
    assert.equal(version.status, 0, version.stderr);
    assert.equal(version.stdout.trim(), (require('../../package.json') as { version: string }).version);
    // Neither the version nor the help touches the database: both answer with one that cannot be reached.
    const unreachable = { ...env, DATABASE_URL: 'mysql://nobody@127.0.0.1:1/x' };
    assert.equal(runManage(['--version'], unreachable).status, 0);
    const help = runManage(['--help'], unreachable);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /changepassword \[options\] <username>/);
    const bare = runManage([], env);
    assert.equal(bare.status, 0, bare.stderr);
    assert.match(bare.stdout, /^Usage: automation-manage \[options\] \[command\]/);
    assert.match(bare.stdout, /createsuperuser/);
    const unknown = runManage(['no_such_command'], env);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /^Error: unknown command 'no_such_command'/);
    for (const args of [['changepassword', 'ghost', '--password', 'x'], ['expire_sessions', '--user', 'ghost'], ['create_oauth2_token', '--user', 'ghost']]) {
      const missing = runManage(args, env);
      assert.equal(missing.status, 1, args.join(' '));
      assert.equal(missing.stderr, "Error: The user 'ghost' does not exist.\n", args.join(' '));
    }
  });

  it('npm start and npm run manage find the tree built and do not compile again (issue 34)', async () => {
    // npm test builds dist/ and marks it; nothing changed since, so the pre-step only checks.
    const check = spawnSync(process.execPath, [resolve(ROOT, 'scripts', 'build-if-stale.js')], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(check.status, 0, check.stderr);
    assert.equal(check.stderr, '', 'no build was started');
    const version = spawnSync('npm', ['run', '--silent', 'manage', '--', '--version'], { cwd: ROOT, env: npmEnv(env), encoding: 'utf8', timeout: 60_000 });
    assert.equal(version.status, 0, version.stderr);
    assert.equal(version.stdout.trim(), (require('../../package.json') as { version: string }).version);
    // npm start as a user types it, on its own process group so that the stop reaches npm's child too.
    const child = spawn('npm', ['start', '--silent'], { cwd: ROOT, env: npmEnv({ ...env, HOST: '127.0.0.1', PORT: '0' }), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    try {
      const deadline = Date.now() + 30_000;
      let url: string | undefined;
      while (!url && Date.now() < deadline && child.exitCode === null) {
        url = /"event":"listening","url":"(http:\/\/[^"]+?)\/"/.exec(out)?.[1];
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(url, `npm start did not listen:\n${out}`);
      await request(url).get('/api/v2/ping/').expect(200);
      assert.doesNotMatch(out, /building/, 'npm start compiled again');
      assert.match(out, /^Automation Service \S+ is listening on /m);
    } finally {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        process.kill(-child.pid!, 'SIGTERM');
        await exited;
      }
    }
  });

  it('applies the password policy to createsuperuser and changepassword unless --skip-policy (issue 34)', () => {
    const strict = { ...env, LOCAL_PASSWORD_MIN_LENGTH: '12' };
    const refused = runManage(['createsuperuser', '--username', 'shorty', '--password', 'Short-1'], strict);
    assert.equal(refused.status, 1);
    assert.equal(refused.stderr, 'Error: password: Password must be at least 12 characters long.\n');
    const skipped = runManage(['createsuperuser', '--username', 'shorty', '--password', 'Short-1', '--skip-policy'], strict);
    assert.equal(skipped.status, 0, skipped.stderr);
    const change = runManage(['changepassword', 'shorty', '--password', 'Short-2'], strict);
    assert.equal(change.status, 1);
    assert.match(change.stderr, /^Error: password: Password must be at least 12 characters long\.$/m);
    assert.equal(runManage(['changepassword', 'shorty', '--password', 'Short-2', '--skip-policy'], strict).status, 0);
    assert.equal(runManage(['changepassword', 'shorty', '--password', 'Long-enough-pass-3'], strict).status, 0);
  });
});
