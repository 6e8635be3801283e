import { unlimited } from '../src/sessions/session-limit.interceptor';
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { Scheduler } from '../src/common/scheduler';
import { ActivityRecord } from '../src/common/activity-record';
import { SessionsService } from '../src/sessions/sessions.service';
import { SettingsService } from '../src/settings/settings.service';
import { TokensService } from '../src/tokens/tokens.service';
import { UsersService } from '../src/users/users.service';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { TEST_DB } from './support/test-db';
import { NO_REQUEST } from '../src/common/request-context';

/**
 * Property-based fuzzing of every route of the OpenAPI document (issue 13), as anonymous, a session, a
 * bearer token and the superuser: generated path ids, query strings, headers and bodies (odd Unicode,
 * invalid UTF-8, huge numbers, deep nesting, wrong types, oversized fields). Every answer must be below
 * 500, carry no stack trace and no SQL, a refused request must not have written a row, and a list
 * (whatever filters, lookups, paths and orderings the query string holds) never shows a plain user a row
 * they could not see.
 *
 * CI runs a fixed seed; a nightly-size run is one command:
 *   FUZZ_RUNS=200000 FUZZ_SEED=$RANDOM TEST_FILTER=fuzz TEST_DATABASES=sqlite npm test
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RESTORE_EVERY = 150;
const CSRF = 'f'.repeat(43);
/**
 * Tables a refused request may legitimately write: the throttle counts refused password attempts, and SPEC §23's
 * authentication events record them (a refused login is `login_failed`).
 */
const MAY_CHANGE_WHEN_REFUSED = new Set(['login_failure', 'authentication_event', 'migrations']);
/** Streams (server-sent events) never end by themselves; the OpenAPI page is static documentation. */
const SKIPPED = [/^\/api\/v2\/me\/session\/events\//, /^\/api\/swagger/];
const LEAK = /\bat [\w.$<>]+ \(|node_modules|SQLITE_[A-Z]|\bER_[A-Z_]{3,}|QueryFailedError|\bSELECT\b[^"]{0,80}\bFROM\b|\bINSERT INTO\b|TypeError|ReferenceError/;

type Identity = 'anonymous' | 'session' | 'bearer' | 'superuser';
interface Route {
  method: string;
  path: string;
}
interface Case {
  route: Route;
  identity: Identity;
  ids: string[];
  query: [string, string][];
  headers: Record<string, string>;
  body: { type: string; bytes: Buffer } | null;
}

const oddText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', '💥', 'ǅ', 'İ', '\u202e', '%', '%zz', '../..', "' OR 1=1 --", '<script>', 'null', 'true', '1e308', '-0', 'x'.repeat(5000)),
);
const oddNumber = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 2 ** 31, 2 ** 53, 1e20, -1e308, Number.MAX_SAFE_INTEGER));
const fieldNames = fc.constantFrom(
  'username', 'password', 'old_password', 'email', 'first_name', 'is_superuser', 'is_active', 'is_system_auditor', 'name', 'description',
  'scope', 'application', 'client_type', 'authorization_grant_type', 'redirect_uris', 'skip_authorization', 'inputs', 'credential_type',
  'inventory', 'variables', 'limit', 'extra_vars', 'SESSION_COOKIE_AGE', 'SESSIONS_PER_USER', 'OAUTH2_PROVIDER', 'CSRF_TRUSTED_ORIGINS',
  'LOGIN_FAILURES_ALLOWED', 'SOCIAL_AUTH_OIDC_PROVIDERS', 'SOCIAL_AUTH_SAML_ENABLED_IDPS', 'grant_type', 'client_id', 'token', 'next', 'id',
);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    oddText,
    oddNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fieldNames, fc.string({ maxLength: 10 })), tie('v'), { maxKeys: 4 }),
  ),
})).v;
const jsonBody = fc.oneof(
  fc.dictionary(fieldNames, value, { maxKeys: 6 }).map((o) => JSON.stringify(o)),
  value.map((v) => JSON.stringify(v) ?? 'null'),
  fc.integer({ min: 100, max: 5000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 100, max: 5000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
  // A field nested to any depth that fits in the 1 MiB body limit (issue 28: 100,000 levels gave 500).
  fc.tuple(fieldNames, fc.integer({ min: 60, max: 170_000 }), fc.boolean()).map(([field, n, list]) =>
    `{"name":"deep","${field}":${list ? '['.repeat(n) + ']'.repeat(n) : '{"a":'.repeat(n) + '1' + '}'.repeat(n)}}`),
  oddText,
);
const body = fc.option(
  fc.oneof(
    { weight: 6, arbitrary: jsonBody.map((text) => ({ type: 'application/json', bytes: Buffer.from(text, 'utf8') })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => ({ type: 'application/json', bytes: Buffer.concat([Buffer.from('{"name":"'), Buffer.from(b), Buffer.from('"}')]) })) },
    { weight: 2, arbitrary: fc.dictionary(fieldNames, oddText, { maxKeys: 5 }).map((o) => ({ type: 'application/x-www-form-urlencoded', bytes: Buffer.from(new URLSearchParams(o as Record<string, string>).toString()) })) },
    { weight: 1, arbitrary: oddText.map((text) => ({ type: fc.sample(fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data', ''), 1)[0], bytes: Buffer.from(text) })) },
  ),
  { freq: 3 },
);
const pathId = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 4 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('0', '-1', '1.5', '1e3', '2147483648', '99999999999999999999', 'abc', '%00', '💥', '..') },
);
/** Issue 28's attacks, as generators: a new list or field is covered by them without a new test. */
const PROTOTYPE_NAMES = ['constructor', 'toString', 'valueOf', 'isPrototypeOf', 'hasOwnProperty', '__proto__', 'propertyIsEnumerable', 'toLocaleString'];
/** Relations of the lists, and fields of the related objects that are not in their summary. */
const RELATIONS = ['user', 'created_by', 'modified_by', 'launched_by', 'application', 'job_template'];
const BEYOND_SUMMARY = ['email', 'is_superuser', 'is_system_auditor', 'is_active', 'last_login', 'external_account', 'created', 'client_type', 'client_id',
  'extra_vars', 'playbook', 'user', 'created_by', 'redirect_uris', 'authorization_grant_type'];
const closedRelationKey = /(?:^|__)(user|created_by|modified_by|launched_by|application|job_template)__(email|is_superuser|is_system_auditor|is_active|last_login|external_account|created|client_type|client_id|extra_vars|playbook|user|created_by|redirect_uris|authorization_grant_type)(?:__|$)/;
const relationKey = fc.tuple(fc.constantFrom(...RELATIONS), fc.constantFrom(...BEYOND_SUMMARY), fc.constantFrom('', '__icontains', '__startswith', '__isnull', '__regex', '__gt'))
  .map(([relation, field, lookup]) => `${relation}__${field}${lookup}`);
const prototypeKey = fc.tuple(fc.constantFrom(...PROTOTYPE_NAMES), fc.constantFrom('', '__exact', '__name', '__in')).chain(([name, lookup]) =>
  fc.constantFrom(`${name}${lookup}`, `not__${name}${lookup}`, `user__${name}`, `or__${name}`));
const regexBomb = fc.constantFrom('^(a|aa)+$', '^(a+)+$', '(a*)*b', '(x+x+)+y', '^(?=a{32}!)(?:(a+)+b|a+!)', '(.*a){12}', '([a-z]+)*!$', '\\u0041', '[[:alpha:]', '(a)\\1', 'a{1001}');
const queryKey = fc.oneof(
  fc.constantFrom('page', 'page_size', 'order_by', 'order', 'search', 'format', 'next', 'idp', 'client_id', 'response_type', 'redirect_uri', 'scope', 'state', 'code_challenge'),
  fieldNames.chain((f) => fc.constantFrom(f, `${f}__icontains`, `${f}__in`, `${f}__isnull`, `${f}__regex`, `not__${f}`, `or__${f}`, `user__${f}`)),
  fc.string({ maxLength: 12 }),
  prototypeKey,
  relationKey,
);
/** A query string's pairs: a few generated ones, or one of the attacks in bulk. */
const queryPairs: fc.Arbitrary<[string, string][]> = fc.oneof(
  { weight: 12, arbitrary: fc.array(fc.tuple(queryKey, oddText.map((s) => s.slice(0, 300))), { maxLength: 4 }) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('description__regex', 'name__iregex', 'username__regex', 'or__description__regex', 'user_agent__regex'), regexBomb).map((p) => [p]) },
  { weight: 1, arbitrary: fc.tuple(prototypeKey, fc.constantFrom('1', 'x')).map(([k, v]) => [[k, v], ['order_by', k]] as [string, string][]) },
  { weight: 1, arbitrary: fc.tuple(relationKey, fc.constantFrom('root@corp.example', 'true', 'a')).map(([k, v]) => [[k, v]] as [string, string][]) },
  {
    weight: 1,
    // Up to 1,001 conditions (SQLite's expression depth is 1,000), in a URL within Node's 16 KiB header limit.
    arbitrary: fc.tuple(fc.constantFrom('id__gte', 'or__id', 'id__lt', 'not__id'), fc.integer({ min: 95, max: 1001 })).map(([key, n]) =>
      Array.from({ length: n }, (_, i) => [key, String(i % 10)] as [string, string])),
  },
  { weight: 1, arbitrary: fc.integer({ min: 95, max: 1001 }).map((n) => [['search', Array.from({ length: n }, () => 'a').join(',')]] as [string, string][]) },
);
const headers = fc.record(
  {
    'Accept-Language': fc.constantFrom('en', 'fr-CA,fr;q=0.9', '*', 'zz-ZZ;q=abc', '💥'),
    Accept: fc.constantFrom('application/json', 'text/html', '*/*', 'image/png', ''),
    Origin: fc.constantFrom('http://127.0.0.1', 'https://evil.example', 'null'),
    'X-API-Request-Id': fc.constantFrom('ab'.repeat(16), 'not-an-id', 'Z'.repeat(200)),
    'X-WS-Session-Quiet': fc.constant('1'),
  },
  { requiredKeys: [] },
);

/** The rows of an answered list; none for any other body. */
function resultsOf<Row>(text: string): Row[] {
  try {
    const body = JSON.parse(text) as { results?: unknown };
    return Array.isArray(body?.results) ? (body.results as Row[]) : [];
  } catch {
    return [];
  }
}

/** A plain user's list shows only what is theirs: themselves, their tokens, applications and objects. */
function assertOnlyOwn(text: string, userId: number, label: string): void {
  for (const row of resultsOf<{ id?: number; type?: string; related?: { user?: string }; summary_fields?: { created_by?: { id?: number } } }>(text)) {
    // An entry of the stream names everyone it touched and its actor (AWX); which entries a caller reads is the
    // stream's own read rule, proven in test/activity-stream.e2e-spec.ts.
    if (row.type === 'activity_stream') continue;
    if (row.type === 'user') assert.equal(row.id, userId, `${label} shows another user`);
    else if (row.related?.user) assert.equal(row.related.user, `/api/v2/users/${userId}/`, `${label} shows another user's ${row.type}`);
    else if (row.summary_fields?.created_by) assert.equal(row.summary_fields.created_by.id, userId, `${label} shows another user's ${row.type}`);
  }
}

/** The users an answered list's rows reach (their owner, creator, last modifier, launcher) are all the caller. */
function assertReachesOnlyOwn(text: string, userId: number, label: string): void {
  for (const row of resultsOf<{ summary_fields?: Record<string, { id?: number } | undefined> }>(text)) {
    for (const relation of ['user', 'created_by', 'modified_by', 'launched_by']) {
      const reached = row.summary_fields?.[relation]?.id;
      if (reached !== undefined) assert.equal(reached, userId, `${label} reaches another user through ${relation}`);
    }
  }
}

/** Percent-encodes a string's UTF-8 bytes (a lone surrogate becomes U+FFFD rather than a client-side error). */
function pct(s: string): string {
  return [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

function send(url: string, method: string, hdrs: Record<string, string>, payload: Buffer | null): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    // Header values go out as their UTF-8 bytes (Node's client sends Latin-1 strings byte for byte).
    const allHeaders: Record<string, string> = Object.fromEntries(Object.entries(hdrs).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('latin1')]));
    if (payload) allHeaders['Content-Length'] = String(payload.length);
    // A connection of its own: an input the server answers by closing (431 for an over-long URL) spoils no other.
    const req = http.request(url, { method, headers: allHeaders, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.setTimeout(30000, () => req.destroy(new Error(`timeout: ${method} ${url}`)));
    req.on('error', (err) => reject(new Error(`${method} ${url.slice(0, 300)} (${url.length} characters, body ${payload?.length ?? 0} bytes of ${hdrs['Content-Type'] ?? 'no type'}: ${payload?.subarray(0, 80).toString('latin1') ?? ''}): ${err.message}`)));
    req.end(payload ?? undefined);
  });
}

describe(`fuzzing every route of the OpenAPI document (${TEST_DB}, ${RUNS} inputs, seed ${SEED})`, () => {
  let t: TestApp;
  let routes: Route[];
  let counts: () => Promise<Record<string, number>>;
  const credentials: Record<Identity, Record<string, string>> = { anonymous: {}, session: {}, bearer: {}, superuser: {} };
  let fuzzerId: number;

  /** Puts back what earlier inputs may have changed (settings, accounts, credentials), so every identity keeps working. */
  async function restore(): Promise<void> {
    const settings = t.app.get(SettingsService);
    await settings.reset('authentication', 'fuzz', NO_REQUEST);
    await settings.store('LOGIN_FAILURES_ALLOWED', 1000000, 'fuzz', NO_REQUEST);
    const users = t.app.get(UsersService);
    for (const [name, password] of [['admin', ADMIN_PASSWORD], ['fuzzer', 'Fuzzer-pass-1']]) {
      let user = await users.findByUsername(name);
      if (!user) user = await users.create({ username: name, password, is_superuser: name === 'admin' }, NO_REQUEST);
      if (!user.isActive || (name === 'admin' && !user.isSuperuser)) user = await users.update(user, { is_active: true, is_superuser: name === 'admin' }, NO_REQUEST);
      await users.setPassword(user, password, NO_REQUEST);
      if (name === 'fuzzer') fuzzerId = user.id;
    }
    const fuzzer = (await users.findById(fuzzerId))!;
    const session = await t.app.get(SessionsService).create(fuzzer, unlimited('127.0.0.1'), 'fuzz', NO_REQUEST);
    credentials.session = { Cookie: `svc_session_id=${session.token}; csrftoken=${CSRF}`, 'X-CSRFToken': CSRF, Referer: 'http://127.0.0.1/' };
    const issued = await t.app.get(TokensService).issue({ user: fuzzer, application: null, scope: 'write', trace: NO_REQUEST });
    credentials.bearer = { Authorization: `Bearer ${issued.token}` };
    credentials.superuser = { Authorization: basic('admin', ADMIN_PASSWORD) };
  }

  before(async () => {
    t = await startTestApp({ env: { PUBLIC_URL: 'http://127.0.0.1' } });
    await t.createUser('fuzzer', 'Fuzzer-pass-1');
    const doc = (await t.http().get('/api/swagger/json/').expect(200)).body as { paths: Record<string, Record<string, unknown>> };
    routes = Object.entries(doc.paths)
      .flatMap(([path, item]) => Object.keys(item).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m)).map((method) => ({ method: method.toUpperCase(), path })))
      .filter((r) => !SKIPPED.some((re) => re.test(r.path)));
    const dataSource = t.app.get(DataSource);
    const tables = dataSource.entityMetadatas.map((m) => m.tableName).filter((name) => !MAY_CHANGE_WHEN_REFUSED.has(name));
    const q = (name: string) => dataSource.driver.escape(name);
    const sql = `SELECT ${tables.map((name) => `(SELECT COUNT(*) FROM ${q(name)}) AS ${q(name)}`).join(', ')}`;
    counts = async () => {
      const [row] = await dataSource.query(sql);
      return Object.fromEntries(Object.entries(row as Record<string, unknown>).map(([k, v]) => [k, Number(v)]));
    };
    await restore();
    // Long rows a backtracking regex engine chokes on (issue 28), owned by the plain user.
    for (let i = 0; i < 10; i++) {
      await t.http().post('/api/v2/hosts/').set('Authorization', basic('fuzzer', 'Fuzzer-pass-1')).send({ name: `long-${i}`, description: `${'a'.repeat(4000)}!` }).expect(201);
    }
    // Objects of both users, so a list that leaked would show one.
    for (const [auth, prefix] of [[basic('admin', ADMIN_PASSWORD), 'admin'], [basic('fuzzer', 'Fuzzer-pass-1'), 'fuzzer']] as const) {
      await t.http().post('/api/v2/hosts/').set('Authorization', auth).send({ name: `${prefix}-host` }).expect(201);
      await t.http().post('/api/v2/credentials/').set('Authorization', auth).send({ name: `${prefix}-cred`, inputs: { password: 'p' } }).expect(201);
      const template = await t.http().post('/api/v2/job_templates/').set('Authorization', auth).send({ name: `${prefix}-jt` }).expect(201);
      await t.http().post(`/api/v2/job_templates/${template.body.id}/launch/`).set('Authorization', auth).send({}).expect(201);
      await t.http().post('/api/v2/applications/').set('Authorization', auth).send({ name: `${prefix}-app`, client_type: 'public', authorization_grant_type: 'password' }).expect(201);
    }
  });
  after(() => t.close());

  it('never answers 500, never leaks a stack trace or SQL, and writes nothing for a refused request', async () => {
    assert.ok(routes.length >= 40, `routes from the OpenAPI document: ${routes.length}`);
    const caseArb: fc.Arbitrary<Case> = fc.record({
      route: fc.constantFrom(...routes),
      identity: fc.constantFrom<Identity>('anonymous', 'session', 'bearer', 'superuser'),
      ids: fc.array(pathId, { minLength: 3, maxLength: 3 }),
      query: queryPairs,
      headers,
      body,
    });
    const seen = new Set<string>();
    let sent = 0;
    const started = Date.now();
    const outcome = await fc.check(
      fc.asyncProperty(caseArb, async (c) => {
        if (sent > 0 && sent % RESTORE_EVERY === 0) await restore();
        sent++;
        let i = 0;
        const path = c.route.path.replace(/\{[^}]+\}/g, () => pct(c.ids[i++ % c.ids.length]));
        const query = c.query.length ? `?${c.query.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&')}` : '';
        const hdrs: Record<string, string> = { ...c.headers, ...credentials[c.identity] };
        if (c.body) hdrs['Content-Type'] = c.body.type;
        // Revocations (accepted requests, the restore) leave clean-up to a background loop: done now, so the
        // counts around this request are its own.
        await t.app.get(Scheduler).runNow('revocation-cleanup');
        // The stream's entries of the accepted request before are written just after its answer: now, so a
        // refused request is seen to record nothing.
        await t.app.get(ActivityRecord).flush();
        const before = await counts();
        // A large body goes only with methods that read one: Fastify leaves a GET's or DELETE's body unread, and
        // a 1 MiB one then holds this in-process client (its response's end never came: seen at input 1800).
        const payload = c.body && (c.body.bytes.length <= 65536 || !['GET', 'DELETE'].includes(c.route.method)) ? c.body.bytes : null;
        const res = await send(`${t.url}${path}${query}`, c.route.method, hdrs, payload);
        seen.add(`${c.route.method} ${c.route.path}`);
        const label = `${c.identity} ${c.route.method} ${path}${query.slice(0, 200)} -> ${res.status}`;
        assert.ok(res.status > 0 && res.status < 500, `${label}: ${res.text.slice(0, 300)}`);
        assert.doesNotMatch(res.text, LEAK, `${label} leaks internals: ${res.text.slice(0, 300)}`);
        if (res.status >= 400) assert.deepEqual(await counts(), before, `${label} wrote a row although it was refused`);
        if (res.status === 200 && (c.identity === 'session' || c.identity === 'bearer')) {
          assertOnlyOwn(res.text, fuzzerId, label);
          // A related object's field beyond its summary (SPEC §19, issue 40): answered only when the rows reach
          // objects the caller may read itself, so an answered list's related users are the caller.
          const closed = c.query.find(([key, v]) => closedRelationKey.test(key) || (key === 'order_by' && closedRelationKey.test(v.replace(/^-/, ''))));
          if (closed) assertReachesOnlyOwn(res.text, fuzzerId, `${label} (filtered on ${closed[0]})`);
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true, interruptAfterTimeLimit: 20 * 60 * 1000 },
    );
    if (outcome.failed) {
      // The failing request, as the assertion described it (the generated value itself can be megabytes).
      const message = String((outcome.errorInstance as Error | undefined)?.message ?? outcome.errorInstance);
      assert.fail(`${message.slice(0, 2000)}\n(seed ${SEED}, path ${outcome.counterexamplePath}; replay with FUZZ_SEED)`);
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    // The closing note quotes this line: inputs sent, routes covered, time.
    console.log(`# fuzz: ${sent} inputs, ${seen.size} of ${routes.length} routes, ${seconds}s (${TEST_DB}, seed ${SEED})`);
    assert.ok(seen.size >= routes.length * 0.9, `covered ${seen.size} of ${routes.length} routes`);
  });
});
