import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { OffThreadReads } from '../src/database/off-thread-reads';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';

/** SPEC §19: AWX's list query language on every list route, translated into each list's SQL. */
describe("lists that AWX's clients can query (SPEC §19)", () => {
  let t: TestApp;
  const admin = () => basic('admin', ADMIN_PASSWORD);
  const plain = () => basic('pat', 'Pat-pass-1');

  async function names(path: string, auth = admin()): Promise<string[]> {
    const res = await t.http().get(path).set('Authorization', auth);
    assert.equal(res.status, 200, `${path}: ${res.status} ${res.text}`);
    return res.body.results.map((r: { username?: string; name?: string; description?: string }) => r.username ?? r.name ?? r.description);
  }
  async function refused(path: string, status: number, detail: RegExp, auth = admin()) {
    const res = await t.http().get(path).set('Authorization', auth);
    assert.equal(res.status, status, `${path}: ${res.status} ${res.text}`);
    assert.match(res.body.detail, detail);
  }

  before(async () => {
    t = await startTestApp();
    await t.createUser('pat', 'Pat-pass-1', { email: 'pat@example.org', first_name: 'Pat' });
    await t.createUser('alice', 'Alice-pass-1', { email: 'alice@example.org', first_name: 'Alice' });
    await t.createUser('Alicia', 'Alicia-pass-1', { email: 'alicia@example.com', last_name: 'Ng' });
    await t.createUser('bob_1', 'Bob-pass-1', { email: 'bob@example.com', is_superuser: true });
    for (const [name, description] of [['web-1', 'front'], ['web-2', 'front'], ['db-1', 'back 100%'], ['Web-3', 'spare']]) {
      await t.http().post('/api/v2/hosts/').set('Authorization', admin()).send({ name, description }).expect(201);
    }
    await t.http().post('/api/v2/hosts/').set('Authorization', plain()).send({ name: 'pat-host' }).expect(201);
    await t.http().post('/api/v2/tokens/').set('Authorization', admin()).send({ description: 'admin-token' }).expect(201);
    await t.http().post('/api/v2/tokens/').set('Authorization', plain()).send({ description: 'pat-token', scope: 'read' }).expect(201);
  });
  after(() => t.close());

  it('exact (the default), iexact, and a filter that matches nothing', async () => {
    assert.deepEqual(await names('/api/v2/users/?username=alice'), ['alice']);
    assert.deepEqual(await names('/api/v2/users/?username__exact=Alice'), [], 'exact is case-sensitive on every database');
    assert.deepEqual(await names('/api/v2/users/?username__iexact=ALICE'), ['alice']);
    assert.deepEqual(await names('/api/v2/users/?username=collection-user'), []);
  });

  it('contains, startswith, endswith and their case-insensitive forms; % and _ match themselves', async () => {
    assert.deepEqual(await names('/api/v2/users/?username__contains=lic'), ['alice', 'Alicia']);
    assert.deepEqual(await names('/api/v2/users/?username__contains=Ali'), ['Alicia']);
    assert.deepEqual(await names('/api/v2/users/?username__icontains=ALI'), ['alice', 'Alicia']);
    assert.deepEqual(await names('/api/v2/users/?username__startswith=A'), ['Alicia']);
    assert.deepEqual(await names('/api/v2/users/?username__istartswith=a'), ['admin', 'alice', 'Alicia']);
    assert.deepEqual(await names('/api/v2/users/?email__endswith=.com'), ['Alicia', 'bob_1']);
    assert.deepEqual(await names('/api/v2/users/?email__iendswith=.ORG'), ['pat', 'alice']);
    assert.deepEqual(await names('/api/v2/users/?username__contains=_'), ['bob_1']);
    assert.deepEqual(await names('/api/v2/hosts/?description__contains=%25'), ['db-1']);
  });

  it('regex and iregex, and a bad pattern is a 400', async () => {
    assert.deepEqual(await names('/api/v2/users/?username__regex=^a.i'), ['alice']);
    assert.deepEqual(await names('/api/v2/users/?username__iregex=^a.i'), ['alice', 'Alicia']);
    await refused('/api/v2/users/?username__regex=(unclosed', 400, /username__regex: invalid regular expression/);
  });

  it('gt, gte, lt, lte, in and isnull, with typed values', async () => {
    const ids = (await t.http().get('/api/v2/users/').set('Authorization', admin())).body.results.map((u: { id: number }) => u.id);
    assert.deepEqual(await names(`/api/v2/users/?id__gt=${ids[2]}`), ['Alicia', 'bob_1']);
    assert.deepEqual(await names(`/api/v2/users/?id__gte=${ids[3]}&id__lt=${ids[4]}`), ['Alicia']);
    assert.deepEqual(await names(`/api/v2/users/?id__lte=${ids[0]}`), ['admin']);
    assert.deepEqual(await names(`/api/v2/users/?id__in=${ids[1]},${ids[3]}`), ['pat', 'Alicia']);
    assert.deepEqual(await names('/api/v2/users/?is_superuser=true'), ['admin', 'bob_1']);
    assert.deepEqual(await names('/api/v2/users/?is_superuser=0&is_active=TRUE'), ['pat', 'alice', 'Alicia']);
    assert.deepEqual(await names('/api/v2/users/?external_account__isnull=false'), []);
    assert.equal((await names('/api/v2/users/?last_login__isnull=true')).length, 5);
    assert.deepEqual(await names('/api/v2/users/?created__gt=2999-01-01T00:00:00Z'), []);
    assert.deepEqual(await names('/api/v2/hosts/?inventory=null'), ['web-1', 'web-2', 'db-1', 'Web-3', 'pat-host']);
    assert.deepEqual(await names('/api/v2/hosts/?inventory=7'), []);
  });

  it('or__, not__ (also after or__) and chain__', async () => {
    assert.deepEqual(await names('/api/v2/users/?or__username=alice&or__username=bob_1'), ['alice', 'bob_1']);
    assert.deepEqual(await names('/api/v2/users/?or__username=alice&or__username=bob_1&is_superuser=true'), ['bob_1']);
    assert.deepEqual(await names('/api/v2/users/?not__username__startswith=a'), ['pat', 'Alicia', 'bob_1']);
    assert.deepEqual(await names('/api/v2/users/?or__not__is_superuser=true&or__username=admin'), ['admin', 'pat', 'alice', 'Alicia']);
    assert.deepEqual(await names('/api/v2/users/?chain__username__icontains=ali&chain__not__username=alice'), ['Alicia']);
    assert.deepEqual(await names('/api/v2/users/?username=alice&username=bob_1'), [], 'several filters AND together');
  });

  it('search over the list\'s text fields, every term required', async () => {
    assert.deepEqual(await names('/api/v2/users/?search=ALIC'), ['alice', 'Alicia']);
    assert.deepEqual(await names('/api/v2/users/?search=ng'), ['Alicia']);
    assert.deepEqual(await names('/api/v2/users/?search=ali,.com'), ['Alicia']);
    assert.deepEqual(await names('/api/v2/hosts/?search=front'), ['web-1', 'web-2']);
  });

  it('order_by (and order) by fields and paths, ties by id', async () => {
    assert.deepEqual(await names('/api/v2/users/?order_by=-username&username__in=pat,alice,admin'), ['pat', 'alice', 'admin']);
    assert.deepEqual(await names('/api/v2/users/?order_by=email&username__in=pat,alice,bob_1'), ['alice', 'bob_1', 'pat']);
    assert.deepEqual(await names('/api/v2/hosts/?order=description,-name'), ['pat-host', 'db-1', 'web-2', 'web-1', 'Web-3']);
    assert.deepEqual(await names('/api/v2/hosts/?order_by=description'), ['pat-host', 'db-1', 'web-1', 'web-2', 'Web-3'], 'ties keep the id order');
    const tokens = await names('/api/v2/tokens/?order_by=-user__username');
    assert.deepEqual(tokens, ['pat-token', 'admin-token']);
    await refused('/api/v2/users/?order_by=password', 403, /^Filtering on password fields is not allowed\.$/);
    await refused('/api/v2/users/?order_by=nosuch', 400, /nosuch/);
  });

  it('related paths: user__username, application__name, created_by__username, job_template__name', async () => {
    assert.deepEqual(await names('/api/v2/tokens/?user__username=pat'), ['pat-token']);
    assert.deepEqual(await names('/api/v2/tokens/?application__isnull=true&user__email__endswith=example.org'), ['pat-token']);
    assert.deepEqual(await names('/api/v2/tokens/?application__name=none'), []);
    assert.deepEqual(await names('/api/v2/hosts/?created_by__username=pat'), ['pat-host']);
    const template = await t.http().post('/api/v2/job_templates/').set('Authorization', admin()).send({ name: 'deploy' }).expect(201);
    await t.http().post(`/api/v2/job_templates/${template.body.id}/launch/`).set('Authorization', admin()).send({}).expect(201);
    assert.equal((await t.http().get('/api/v2/jobs/?job_template__name=deploy').set('Authorization', admin())).body.count, 1);
    assert.equal((await t.http().get('/api/v2/jobs/?job_template__name=other').set('Authorization', admin())).body.count, 0);
    assert.deepEqual(await names('/api/v2/job_templates/?limit='), ['deploy'], "a job template's limit is filtered as limit__exact");
  });

  it('refuses secrets (403) and unknown fields, lookups, paths, values and names (400)', async () => {
    await refused('/api/v2/users/?password__startswith=pbkdf2', 403, /^Filtering on password fields is not allowed\.$/);
    await refused('/api/v2/tokens/?user__password=x', 403, /^Filtering on password fields is not allowed\.$/);
    await refused('/api/v2/tokens/?token__startswith=svcp', 403, /^Filtering on token is not allowed\.$/);
    await refused('/api/v2/tokens/?refresh_token=x', 403, /refresh_token/);
    await refused('/api/v2/applications/?client_secret=x', 403, /client_secret/);
    await refused('/api/v2/credentials/?inputs__icontains=x', 403, /inputs/);
    await refused('/api/v2/me/sessions/?session_key=x', 403, /session_key/);
    await refused('/api/v2/users/?nosuch=1', 400, /nosuch/);
    await refused('/api/v2/users/?username__nosuch=1', 400, /username__nosuch|nosuch/);
    await refused('/api/v2/users/?id=abc', 400, /id: "abc" is not an integer/);
    await refused('/api/v2/users/?is_active=maybe', 400, /boolean/);
    await refused('/api/v2/users/?id__in=', 400, /id__in/);
    await refused('/api/v2/users/?id__in=1,,2', 400, /id__in/);
    await refused('/api/v2/users/?created__gt=yesterday', 400, /created/);
    await refused('/api/v2/tokens/?user__user__username=x', 400, /user/);
    await refused('/api/v2/users/?%C3%A9=1', 400, /Invalid field name/);
    await refused('/api/v2/users/?is_active__contains=t', 400, /text fields only/);
  });

  it('filters run inside what the caller may see', async () => {
    assert.deepEqual(await names('/api/v2/users/?username=alice', plain()), []);
    assert.deepEqual(await names('/api/v2/users/?username__icontains=a', plain()), ['pat']);
    assert.deepEqual(await names('/api/v2/tokens/?user__username=admin', plain()), []);
    assert.deepEqual(await names('/api/v2/tokens/', plain()), ['pat-token']);
    assert.deepEqual(await names('/api/v2/hosts/?name__startswith=web', plain()), []);
    assert.deepEqual(await names('/api/v2/me/?username=alice', plain()), []);
    assert.deepEqual(await names('/api/v2/me/?username=pat', plain()), ['pat']);
  });

  it('counts the filtered rows, and next and previous keep every parameter but page', async () => {
    const first = await t.http().get('/api/v2/hosts/?name__icontains=web&order_by=name&page_size=2').set('Authorization', admin()).expect(200);
    assert.equal(first.body.count, 3);
    assert.equal(first.body.previous, null);
    const next = new URL(first.body.next, 'http://x');
    assert.equal(next.pathname, '/api/v2/hosts/');
    assert.deepEqual(Object.fromEntries(next.searchParams), { page: '2', name__icontains: 'web', order_by: 'name', page_size: '2' });
    const second = await t.http().get(first.body.next).set('Authorization', admin()).expect(200);
    assert.equal(second.body.results.length, 1);
    assert.deepEqual(Object.fromEntries(new URL(second.body.previous, 'http://x').searchParams), { page: '1', name__icontains: 'web', order_by: 'name', page_size: '2' });
  });

  it('reads one page of rows in SQL, with the filter in the WHERE clause', async () => {
    const dataSource = t.app.get(DataSource);
    const runner = dataSource.createQueryRunner();
    const proto = Object.getPrototypeOf(runner) as { query: (...args: unknown[]) => Promise<unknown> };
    await runner.release();
    const original = proto.query;
    const statements: string[] = [];
    proto.query = function (this: unknown, ...args: unknown[]) {
      statements.push(String(args[0]));
      return original.apply(this, args);
    };
    // On SQLite the count and the page's ids are read off the event loop (src/database/off-thread-reads.ts).
    const offThread = OffThreadReads.prototype.rows;
    OffThreadReads.prototype.rows = function (this: OffThreadReads, sql: string, params: unknown[]) {
      statements.push(sql);
      return offThread.call(this, sql, params);
    };
    try {
      const res = await t.http().get('/api/v2/hosts/?name__icontains=web&page_size=2').set('Authorization', admin()).expect(200);
      assert.equal(res.body.results.length, 2);
    } finally {
      proto.query = original;
      OffThreadReads.prototype.rows = offThread;
    }
    const select = statements.find((s) => /FROM\s+["`]main_host["`]/i.test(s) && /LIMIT/i.test(s));
    assert.ok(select, `a paged SELECT ran: ${statements.join('\n')}`);
    assert.match(select!, /LOWER\(.*name.*\) LIKE LOWER/i);
    assert.match(select!, /LIMIT 2/i);
    const count = statements.find((s) => /COUNT\(/i.test(s) && /main_host/i.test(s));
    assert.ok(count && /LIKE/i.test(count), 'the count is filtered in SQL too');
  });

  it('every response names the product and its version', async () => {
    const res = await t.http().get('/api/v2/ping/').expect(200);
    assert.equal(res.headers['x-api-product-name'], 'AWX');
    assert.match(res.headers['x-api-product-version'], /^\d+\.\d+\.\d+$/);
    const refusedRes = await t.http().get('/api/v2/users/').expect(401);
    assert.match(refusedRes.headers['x-api-product-version'], /^\d+\.\d+\.\d+$/);
  });
});
