/**
 * Issue 30's closing number: how long a form login through an LDAP directory takes against a local user's.
 * Not part of `npm test` or `npm run bench`: run it by hand after a build,
 *
 *   node scripts/build-if-stale.js && TEST_DB=sqlite node dist/bench/ldap-logins.js [count]
 *
 * It starts its own slapd (test/support/slapd-server.ts) and the real app on a fresh database, configures
 * the default directory as the e2e test does (a search as a service account, nested groups, both flags
 * mapped, REQUIRE_GROUP), warms up, then times `count` (100) sequential POST /api/login/ of each kind and
 * prints the percentiles. Only the POST is timed; the GET of the form (for the CSRF cookie) is not.
 */
import { performance } from 'node:perf_hooks';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from '../test/support/test-app';
import { cookieValue } from '../test/support/browser-login';
import { defaultDirectory, DN, PASSWORDS, startDirectory } from '../test/support/ldap-directory';
import { TEST_DB } from '../test/support/test-db';

async function timedLogin(t: TestApp, username: string, password: string): Promise<number> {
  const agent = t.agent();
  const page = await agent.get('/api/login/');
  const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
  const started = performance.now();
  const res = await agent.post('/api/login/').set('X-CSRFToken', csrf).set('Referer', `${t.url}/api/login/`).type('form').send({ username, password });
  const elapsed = performance.now() - started;
  if (res.status !== 302) throw new Error(`login of ${username} answered ${res.status}`);
  return elapsed;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 100);
  const ldap = await startDirectory();
  const t = await startTestApp();
  try {
    await t.createUser('local', 'Local-bench-pw-1');
    const res = await t
      .http()
      .patch('/api/v2/settings/ldap/')
      .set('Authorization', basic('admin', ADMIN_PASSWORD))
      .send(defaultDirectory(ldap, { AUTH_LDAP_REQUIRE_GROUP: DN.staff }));
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    const kinds: [string, string, string][] = [
      ['LDAP user (alice, through slapd)', 'alice', PASSWORDS.alice],
      ['local user', 'local', 'Local-bench-pw-1'],
    ];
    for (const [, username, password] of kinds) for (let i = 0; i < 5; i++) await timedLogin(t, username, password);
    console.log(`${count} sequential form logins of each kind, ${TEST_DB}, node ${process.version}`);
    const measure = async (name: string, username: string, password: string) => {
      const times: number[] = [];
      for (let i = 0; i < count; i++) times.push(await timedLogin(t, username, password));
      const sorted = [...times].sort((a, b) => a - b);
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      console.log(`${name.padEnd(40)} p50 ${percentile(sorted, 50).toFixed(1)} ms  p90 ${percentile(sorted, 90).toFixed(1)} ms  mean ${mean.toFixed(1)} ms`);
    };
    for (const [name, username, password] of kinds) await measure(name, username, password);
    // The same directory over ldaps:// (a TLS handshake per login), for the record.
    const tls = await t
      .http()
      .patch('/api/v2/settings/ldap/')
      .set('Authorization', basic('admin', ADMIN_PASSWORD))
      .send({ AUTH_LDAP_SERVER_URI: ldap.ldapsUrl, AUTH_LDAP_CA_CERT: ldap.ca.certPem });
    if (tls.status !== 200) throw new Error(JSON.stringify(tls.body));
    for (let i = 0; i < 5; i++) await timedLogin(t, 'alice', PASSWORDS.alice);
    await measure('LDAP user (alice, over ldaps://)', 'alice', PASSWORDS.alice);
  } finally {
    await t.close();
    await ldap.destroy();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
