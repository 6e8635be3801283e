import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, Server as HttpsServer } from 'node:https';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { freePort } from './support/free-port';
import { eventually, RsyslogServer } from './support/rsyslog-server';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { createTestDatabase } from './support/test-db';
import { certificateAuthority, issuedCertificate, KeyAndCert, selfSignedCertificate } from './support/x509';
import { TEST_DB } from './support/test-db';

const ADMIN = basic('admin', ADMIN_PASSWORD);
const AGGREGATOR_PASSWORD = 'Aggregator-secret-77';
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

type Record_ = Record<string, unknown>;

/** One HTTPS receiver on loopback: records what each POST carried, answering `status()` (a 2xx delivers). */
class HttpsReceiver {
  readonly received: { body: Record_; authorization?: string; path: string; contentType?: string }[] = [];
  status = () => 200;
  server?: HttpsServer;
  port = 0;

  async start(pair: KeyAndCert): Promise<void> {
    this.server = createHttpsServer({ key: pair.privateKeyPem, cert: pair.certPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const status = this.status();
        if (status >= 200 && status < 300) {
          this.received.push({ body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record_, authorization: req.headers.authorization, path: req.url ?? '', contentType: req.headers['content-type'] });
        }
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

describe(`log forwarding to rsyslog and an HTTPS receiver (SPEC §23, issue 61, ${TEST_DB})`, () => {
  let t: TestApp;
  let rsyslog: RsyslogServer;
  const ca = certificateAuthority('Log receiver test CA');
  const dir = mkdtempSync(join(tmpdir(), 'svc-logfwd-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, ca.certPem);

  const patch = (values: Record_, auth = ADMIN) => t.http().patch('/api/v2/settings/logging/').set('Authorization', auth).send(values);
  const logging = async () => (await t.http().get('/api/v2/settings/logging/').set('Authorization', ADMIN).expect(200)).body as Record_;
  const probe = (auth = ADMIN) => t.http().post('/api/v2/settings/logging/test/').set('Authorization', auth).send({ ignored: true });
  const metric = async (name: string) => {
    const text = (await t.http().get('/api/v2/metrics/').set('Authorization', ADMIN).expect(200)).text;
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line ? Number(line.split(' ')[1]) : NaN;
  };
  const tcpTo = (extra: Record_ = {}) =>
    patch({ LOG_AGGREGATOR_HOST: '127.0.0.1', LOG_AGGREGATOR_PORT: rsyslog.tcpPort, LOG_AGGREGATOR_PROTOCOL: 'tcp', LOG_AGGREGATOR_TYPE: 'logstash', LOG_AGGREGATOR_ENABLED: true, LOG_AGGREGATOR_TCP_TIMEOUT: 1, ...extra }).expect(200);
  const off = () => t.http().delete('/api/v2/settings/logging/').set('Authorization', ADMIN).expect(204);
  const tcpRecords = (where: (r: Record_) => boolean) => rsyslog.received('tcp').filter(where);

  before(async () => {
    rsyslog = new RsyslogServer();
    await rsyslog.start();
    t = await startTestApp({ env: { NODE_EXTRA_CA_CERTS: caFile, TRUSTED_PROXIES: '127.0.0.1' } });
    await t.createUser('bob', 'Bob-pass-1');
    await t.createUser('alice', 'Alice-pass-1');
  });
  // Each test starts from AWX's defaults, whatever the one before left.
  afterEach(() => off());
  after(async () => {
    await t?.close();
    await rsyslog?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is AWX 23\'s logging category with its defaults; the password is write-only', async () => {
    assert.deepEqual(await logging(), {
      LOG_AGGREGATOR_HOST: null, LOG_AGGREGATOR_PORT: null, LOG_AGGREGATOR_TYPE: null, LOG_AGGREGATOR_USERNAME: '', LOG_AGGREGATOR_PASSWORD: '',
      LOG_AGGREGATOR_LOGGERS: ['awx', 'activity_stream', 'job_events', 'system_tracking', 'broadcast_websocket', 'authentication'],
      LOG_AGGREGATOR_INDIVIDUAL_FACTS: false, LOG_AGGREGATOR_ENABLED: false, LOG_AGGREGATOR_TOWER_UUID: '', LOG_AGGREGATOR_PROTOCOL: 'https',
      LOG_AGGREGATOR_TCP_TIMEOUT: 5, LOG_AGGREGATOR_VERIFY_CERT: true, LOG_AGGREGATOR_LEVEL: 'WARNING', LOG_AGGREGATOR_ACTION_QUEUE_SIZE: 131072,
      LOG_AGGREGATOR_ACTION_MAX_DISK_USAGE_GB: 1, LOG_AGGREGATOR_MAX_DISK_USAGE_PATH: '/var/lib/awx', LOG_AGGREGATOR_RSYSLOGD_DEBUG: false,
    });
    const categories = (await t.http().get('/api/v2/settings/').set('Authorization', ADMIN).expect(200)).body.results as { slug: string; name: string }[];
    assert.deepEqual(categories.find((c) => c.slug === 'logging')?.name, 'Logging');
    await patch({ LOG_AGGREGATOR_HOST: 'logs.example.org', LOG_AGGREGATOR_PASSWORD: AGGREGATOR_PASSWORD }).expect(200);
    assert.equal((await logging()).LOG_AGGREGATOR_PASSWORD, '$encrypted$');
    const all = (await t.http().get('/api/v2/settings/all/').set('Authorization', ADMIN).expect(200)).body as Record_;
    assert.equal(all.LOG_AGGREGATOR_PASSWORD, '$encrypted$');
    await off();
  });

  it('refuses every bad value with a 400 naming the key, and stores nothing of that write', async () => {
    const bad: [Record_, string, string?][] = [
      [{ LOG_AGGREGATOR_PORT: 0 }, 'LOG_AGGREGATOR_PORT'],
      [{ LOG_AGGREGATOR_PORT: 65536 }, 'LOG_AGGREGATOR_PORT'],
      [{ LOG_AGGREGATOR_PORT: '514' }, 'LOG_AGGREGATOR_PORT'],
      [{ LOG_AGGREGATOR_TYPE: 'graylog' }, 'LOG_AGGREGATOR_TYPE', '"graylog" is not a valid choice.'],
      [{ LOG_AGGREGATOR_PROTOCOL: 'ftp' }, 'LOG_AGGREGATOR_PROTOCOL', '"ftp" is not a valid choice.'],
      [{ LOG_AGGREGATOR_LEVEL: 'TRACE' }, 'LOG_AGGREGATOR_LEVEL', '"TRACE" is not a valid choice.'],
      [{ LOG_AGGREGATOR_LOGGERS: ['awx', 'nope'] }, 'LOG_AGGREGATOR_LOGGERS'],
      [{ LOG_AGGREGATOR_LOGGERS: 'awx' }, 'LOG_AGGREGATOR_LOGGERS'],
      [{ LOG_AGGREGATOR_TCP_TIMEOUT: 0 }, 'LOG_AGGREGATOR_TCP_TIMEOUT'],
      [{ LOG_AGGREGATOR_TCP_TIMEOUT: 301 }, 'LOG_AGGREGATOR_TCP_TIMEOUT'],
      [{ LOG_AGGREGATOR_ACTION_QUEUE_SIZE: 0 }, 'LOG_AGGREGATOR_ACTION_QUEUE_SIZE'],
      [{ LOG_AGGREGATOR_ACTION_QUEUE_SIZE: 1048577 }, 'LOG_AGGREGATOR_ACTION_QUEUE_SIZE'],
      [{ LOG_AGGREGATOR_ACTION_MAX_DISK_USAGE_GB: 0 }, 'LOG_AGGREGATOR_ACTION_MAX_DISK_USAGE_GB'],
      [{ LOG_AGGREGATOR_MAX_DISK_USAGE_PATH: 'var/lib/awx' }, 'LOG_AGGREGATOR_MAX_DISK_USAGE_PATH'],
      [{ LOG_AGGREGATOR_HOST: 'ftp://logs.example.org' }, 'LOG_AGGREGATOR_HOST'],
      [{ LOG_AGGREGATOR_HOST: 'logs example.org' }, 'LOG_AGGREGATOR_HOST'],
      [{ LOG_AGGREGATOR_HOST: 'https://user:pw@logs.example.org/' }, 'LOG_AGGREGATOR_HOST'],
      [{ LOG_AGGREGATOR_ENABLED: 'yes' }, 'LOG_AGGREGATOR_ENABLED'],
      [{ LOG_AGGREGATOR_VERIFY_CERT: null }, 'LOG_AGGREGATOR_VERIFY_CERT'],
      [{ LOG_AGGREGATOR_ENABLED: true }, 'LOG_AGGREGATOR_HOST', 'Cannot enable log aggregator without providing host.'],
      [{ LOG_AGGREGATOR_ENABLED: true, LOG_AGGREGATOR_HOST: 'logs.example.org' }, 'LOG_AGGREGATOR_TYPE', 'Cannot enable log aggregator without providing type.'],
    ];
    const before_ = await logging();
    for (const [body, key, message] of bad) {
      const res = await patch({ ...body, LOG_AGGREGATOR_TOWER_UUID: 'must-not-be-stored' }).expect(400);
      assert.deepEqual(Object.keys(res.body), [key], JSON.stringify(body));
      if (message) assert.deepEqual(res.body[key], [message], JSON.stringify(body));
    }
    assert.deepEqual(await logging(), before_);
    // Accepted forms: a host name, an address, a URL for https (its port and path kept).
    for (const host of ['logs.example.org', '192.0.2.7', 'https://logs.example.org:8088/services/collector/event?channel=1', 'http://10.0.0.1/in']) {
      await patch({ LOG_AGGREGATOR_HOST: host }).expect(200);
    }
    await off();
  });

  it('never sends a stored password to a new host, port or protocol', async () => {
    await patch({ LOG_AGGREGATOR_HOST: 'logs.example.org', LOG_AGGREGATOR_PORT: 8088, LOG_AGGREGATOR_PASSWORD: AGGREGATOR_PASSWORD }).expect(200);
    for (const moved of [{ LOG_AGGREGATOR_HOST: 'elsewhere.example.org' }, { LOG_AGGREGATOR_PORT: 8089 }, { LOG_AGGREGATOR_PROTOCOL: 'tcp' }, { LOG_AGGREGATOR_PORT: 8089, LOG_AGGREGATOR_PASSWORD: '$encrypted$' }]) {
      const res = await patch(moved).expect(400);
      assert.deepEqual(Object.keys(res.body), ['LOG_AGGREGATOR_PASSWORD'], JSON.stringify(moved));
    }
    assert.equal((await logging()).LOG_AGGREGATOR_PORT, 8088);
    await patch({ LOG_AGGREGATOR_PORT: 8089, LOG_AGGREGATOR_PASSWORD: 'Another-secret-1' }).expect(200);
    await patch({ LOG_AGGREGATOR_USERNAME: 'splunker' }).expect(200); // the address stays: the password is kept
    await off();
  });

  it('tests the connection as AWX: superusers only, 409 while off, the port for tcp and udp, a refused tcp receiver', async () => {
    await t.http().post('/api/v2/settings/logging/test/').expect(401);
    await probe(basic('bob', 'Bob-pass-1')).expect(403);
    assert.deepEqual((await probe().expect(409)).body, { error: 'Logging not enabled' });
    await patch({ LOG_AGGREGATOR_HOST: '127.0.0.1', LOG_AGGREGATOR_TYPE: 'other', LOG_AGGREGATOR_PROTOCOL: 'tcp', LOG_AGGREGATOR_ENABLED: true }).expect(200);
    assert.deepEqual((await probe().expect(400)).body, { error: 'Port required for tcp' });
    await patch({ LOG_AGGREGATOR_PROTOCOL: 'udp' }).expect(200);
    assert.deepEqual((await probe().expect(400)).body, { error: 'Port required for udp' });
    await patch({ LOG_AGGREGATOR_PROTOCOL: 'tcp', LOG_AGGREGATOR_PORT: await freePort() }).expect(200);
    const refused = await probe().expect(400);
    assert.match(String(refused.body.error), /ECONNREFUSED/);
    const res = await t.http().get('/api/v2/settings/logging/test/').set('Authorization', ADMIN).expect(405);
    assert.equal(res.headers.allow, 'POST, OPTIONS');

    // The refused probe's record waits, and goes to the receiver the settings name next (as AWX's rsyslog queue).
    await tcpTo({ LOG_AGGREGATOR_TOWER_UUID: 'probe' });
    const accepted = await probe().expect(202);
    assert.equal(accepted.text, '');
    const tests = () => tcpRecords((r) => r.message === 'AWX Connection Test Message' && r.tower_uuid === 'probe');
    const [test] = await eventually(tests, (r) => r.length === 1, 'the test message');
    assert.equal(test.level, 'ERROR');
    assert.equal(test.logger_name, 'awx');
    // Another first logger: its analytics name, whatever the level.
    await tcpTo({ LOG_AGGREGATOR_LOGGERS: ['authentication', 'awx'], LOG_AGGREGATOR_LEVEL: 'CRITICAL', LOG_AGGREGATOR_TOWER_UUID: 'probe' });
    await probe().expect(202);
    const second = await eventually(tests, (r) => r.length === 2, 'the second test message');
    assert.equal(second[1].logger_name, 'awx.analytics.authentication');
    await off();
  });

  it('sends over tcp the events and the service\'s own lines as AWX\'s LogstashFormatter shapes them, by logger and level', async () => {
    await tcpTo({ LOG_AGGREGATOR_USERNAME: 'u', LOG_AGGREGATOR_PASSWORD: AGGREGATOR_PASSWORD });
    await t.http().get('/api/v2/me/').set('Authorization', basic('bob', 'not-Bob-pass')).expect(401);
    const [failed] = await eventually(() => tcpRecords((r) => r.logger_name === 'awx.analytics.authentication' && r.event === 'login_failed' && r.username === 'bob'), (r) => r.length === 1, 'login_failed');
    const events = (await t.http().get('/api/v2/authentication_events/?event=login_failed&username=bob').set('Authorization', ADMIN).expect(200)).body.results as Record_[];
    assert.equal(events.length, 1, JSON.stringify(failed));
    const { url: _url, related: _related, ...fields } = events[0];
    assert.deepEqual(
      Object.keys(failed).sort(),
      [...Object.keys(fields), '@timestamp', 'message', 'host', 'level', 'logger_name', 'cluster_host_id', 'tower_uuid'].filter((k, i, a) => a.indexOf(k) === i).sort(),
    );
    for (const [key, value] of Object.entries(fields)) assert.deepEqual(failed[key], value, key);
    assert.equal(failed.message, 'login_failed bob');
    assert.equal(failed.level, 'WARNING');
    assert.equal(failed.logger_name, 'awx.analytics.authentication');
    assert.equal(failed.host, hostname());
    assert.equal(failed.cluster_host_id, t.config.nodeName);
    assert.match(String(failed['@timestamp']), ISO_MS);
    assert.match(String(failed.tower_uuid), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const installation = failed.tower_uuid;

    // A successful session login is INFO; the installation's UUID is the same on every record, LOG_AGGREGATOR_TOWER_UUID wins.
    await t.http().post('/api/v2/tokens/').set('Authorization', basic('bob', 'Bob-pass-1')).send({ scope: 'read' }).expect(201);
    const [created] = await eventually(() => tcpRecords((r) => r.logger_name === 'awx.analytics.authentication' && r.event === 'token_created' && r.username === 'bob'), (r) => r.length === 1, 'token_created');
    assert.equal(created.level, 'INFO');
    assert.equal(created.tower_uuid, installation);

    // The awx logger: the service's own lines at or above LOG_AGGREGATOR_LEVEL (settings_changed is INFO).
    await tcpTo({ LOG_AGGREGATOR_TOWER_UUID: 'site-uuid-1' });
    await tcpTo({ LOG_AGGREGATOR_LEVEL: 'INFO', LOG_AGGREGATOR_TOWER_UUID: 'site-uuid-2' });
    const [changed] = await eventually(() => tcpRecords((r) => r.logger_name === 'awx.settings'), (r) => r.length >= 1, 'settings_changed');
    assert.equal(changed.tower_uuid, 'site-uuid-2');
    assert.equal(changed.event, 'settings_changed');
    assert.equal(changed.level, 'INFO');
    assert.equal(changed.message, 'settings_changed');
    assert.equal(changed.user, 'admin');
    assert.equal(tcpRecords((r) => r.tower_uuid === 'site-uuid-1' && r.logger_name === 'awx.settings').length, 0, 'INFO is below WARNING');

    // A logger left out of LOG_AGGREGATOR_LOGGERS sends nothing: the probe's record, sent after, arrives alone.
    await tcpTo({ LOG_AGGREGATOR_LOGGERS: ['awx'], LOG_AGGREGATOR_LEVEL: 'WARNING', LOG_AGGREGATOR_TOWER_UUID: 'site-uuid-3' });
    await t.http().get('/api/v2/me/').set('Authorization', basic('alice', 'not-Alice-pass')).expect(401);
    await t.app.get((await import('../src/common/authentication-record')).AuthenticationRecord).flush();
    await probe().expect(202);
    await eventually(() => tcpRecords((r) => r.tower_uuid === 'site-uuid-3'), (r) => r.some((x) => x.message === 'AWX Connection Test Message'), 'the probe');
    // The awx logger's own WARNING line about the failure goes; the authentication event does not.
    const site3 = tcpRecords((r) => r.tower_uuid === 'site-uuid-3');
    assert.deepEqual(site3.map((r) => [r.logger_name, r.event ?? r.message]).filter(([name]) => name !== 'awx.settings'), [['awx.auth', 'login_failed'], ['awx', 'AWX Connection Test Message']]);

    // The password goes nowhere but to the aggregator (tcp has no use for it).
    assert.ok(!rsyslog.rawText().includes(AGGREGATOR_PASSWORD));
    assert.ok(!t.logs.join('\n').includes(AGGREGATOR_PASSWORD));
    await off();
  });

  it('sends one datagram per record over udp', async () => {
    await patch({ LOG_AGGREGATOR_HOST: '127.0.0.1', LOG_AGGREGATOR_PORT: rsyslog.udpPort, LOG_AGGREGATOR_PROTOCOL: 'udp', LOG_AGGREGATOR_TYPE: 'other', LOG_AGGREGATOR_ENABLED: true, LOG_AGGREGATOR_TOWER_UUID: 'udp-1', LOG_AGGREGATOR_LOGGERS: ['awx', 'authentication'] }).expect(200);
    await probe().expect(202);
    await t.http().get('/api/v2/me/').set('Authorization', basic('bob', 'not-Bob-pass-2')).expect(401);
    const got = await eventually(
      () => rsyslog.received('udp').filter((r) => r.tower_uuid === 'udp-1' && r.logger_name !== 'awx.auth'),
      (r) => r.length === 2,
      'two datagrams',
    );
    assert.deepEqual(got.map((r) => r.message), ['AWX Connection Test Message', 'login_failed bob']);
    await off();
  });

  it('POSTs one record per request over https: Splunk\'s wrapping and header, basic authentication, the CA, the path', async () => {
    const trusted = new HttpsReceiver();
    await trusted.start(issuedCertificate(ca, 'localhost', { ips: ['127.0.0.1'] }));
    const untrusted = new HttpsReceiver();
    await untrusted.start(selfSignedCertificate('localhost', 365, { ips: ['127.0.0.1'] }));
    try {
      await patch({
        LOG_AGGREGATOR_HOST: `https://127.0.0.1:${trusted.port}/services/collector/event?channel=7`, LOG_AGGREGATOR_TYPE: 'splunk', LOG_AGGREGATOR_PROTOCOL: 'https',
        LOG_AGGREGATOR_PASSWORD: AGGREGATOR_PASSWORD, LOG_AGGREGATOR_USERNAME: 'unused', LOG_AGGREGATOR_ENABLED: true, LOG_AGGREGATOR_TCP_TIMEOUT: 1,
        LOG_AGGREGATOR_LOGGERS: ['awx'],
      }).expect(200);
      await probe().expect(202);
      const [splunk] = await eventually(() => trusted.received, (r) => r.length === 1, 'the splunk record');
      assert.equal(splunk.path, '/services/collector/event?channel=7');
      assert.equal(splunk.authorization, `Splunk ${AGGREGATOR_PASSWORD}`);
      assert.equal(splunk.contentType, 'application/json');
      assert.deepEqual(Object.keys(splunk.body), ['time', 'event']);
      assert.equal(typeof splunk.body.time, 'number');
      const event = splunk.body.event as Record_;
      assert.equal(event.message, 'AWX Connection Test Message');
      assert.equal(Math.round(Number(splunk.body.time) * 1000), Date.parse(String(event['@timestamp'])));

      // Any other type: basic authentication with the username; the port from LOG_AGGREGATOR_PORT when the host has none.
      await patch({ LOG_AGGREGATOR_HOST: '127.0.0.1', LOG_AGGREGATOR_PORT: trusted.port, LOG_AGGREGATOR_TYPE: 'logstash', LOG_AGGREGATOR_USERNAME: 'shipper', LOG_AGGREGATOR_PASSWORD: AGGREGATOR_PASSWORD }).expect(200);
      await probe().expect(202);
      const [, logstash] = await eventually(() => trusted.received, (r) => r.length === 2, 'the logstash record');
      assert.equal(logstash.authorization, `Basic ${Buffer.from(`shipper:${AGGREGATOR_PASSWORD}`).toString('base64')}`);
      assert.equal(logstash.body.message, 'AWX Connection Test Message');

      // A receiver whose certificate no trusted CA signed gets nothing until VERIFY_CERT is false; a 500 is retried.
      untrusted.status = () => 500;
      await patch({ LOG_AGGREGATOR_PORT: untrusted.port, LOG_AGGREGATOR_PASSWORD: AGGREGATOR_PASSWORD, LOG_AGGREGATOR_TOWER_UUID: 'https-untrusted' }).expect(200);
      await probe().expect(202);
      await eventually(() => metric('svc_log_records_queued'), (n) => n >= 1, 'a waiting record');
      await patch({ LOG_AGGREGATOR_VERIFY_CERT: false }).expect(200);
      let answered = 0;
      untrusted.status = () => (++answered < 3 ? 500 : 200);
      const got = await eventually(() => untrusted.received, (r) => r.length === 1, 'the record once the certificate is not checked');
      assert.equal(got[0].body.tower_uuid, 'https-untrusted');
      assert.ok(answered >= 3, 'the 500s were retried');
      await eventually(() => metric('svc_log_records_queued'), (n) => n === 0, 'nothing waits');
    } finally {
      await off();
      await trusted.close();
      await untrusted.close();
    }
  });

  it('queues while rsyslog is down and delivers everything in order once it is back; beyond memory, this process\'s folder holds them', async () => {
    const spoolRoot = join(dir, 'spool');
    await tcpTo({ LOG_AGGREGATOR_LEVEL: 'INFO', LOG_AGGREGATOR_LOGGERS: ['awx'], LOG_AGGREGATOR_ACTION_QUEUE_SIZE: 3, LOG_AGGREGATOR_MAX_DISK_USAGE_PATH: spoolRoot });
    await rsyslog.stop();
    for (let i = 1; i <= 12; i++) await tcpTo({ LOG_AGGREGATOR_TOWER_UUID: `outage-${i}` });
    assert.ok((await metric('svc_log_records_queued')) >= 12);
    const folder = join(spoolRoot, `${t.config.nodeName.replace(/[^A-Za-z0-9._-]/g, '_')}-${process.pid}`);
    const spooled = readdirSync(folder).map((f) => readFileSync(join(folder, f), 'utf8')).join('');
    assert.ok(spooled.includes('"outage-12"'), 'the newest records wait on disk');
    await rsyslog.start();
    const outage = await eventually(
      () => tcpRecords((r) => String(r.tower_uuid).startsWith('outage-') && r.logger_name === 'awx.settings'),
      (r) => r.length >= 12,
      'the outage\'s records',
    );
    assert.deepEqual(outage.map((r) => r.tower_uuid), Array.from({ length: 12 }, (_, i) => `outage-${i + 1}`));
    await eventually(() => readdirSync(folder), (files) => files.length === 0, 'an empty folder');
    await off();
  });

  it('drops and counts what neither memory nor the folder can hold, and says so in one warning once delivery works again', async () => {
    const notAFolder = join(dir, 'a-file');
    writeFileSync(notAFolder, 'x');
    await tcpTo({ LOG_AGGREGATOR_ACTION_QUEUE_SIZE: 2, LOG_AGGREGATOR_MAX_DISK_USAGE_PATH: join(notAFolder, 'spool'), LOG_AGGREGATOR_TOWER_UUID: 'drop', LOG_AGGREGATOR_LOGGERS: ['awx'] });
    const droppedBefore = await metric('svc_log_records_dropped_total');
    await rsyslog.stop();
    for (let i = 0; i < 5; i++) await probe().expect(400);
    assert.equal((await metric('svc_log_records_dropped_total')) - droppedBefore, 3);
    await rsyslog.start();
    const got = await eventually(() => tcpRecords((r) => r.tower_uuid === 'drop'), (r) => r.length === 3, 'two records and the warning');
    assert.deepEqual(got.map((r) => r.message), ['AWX Connection Test Message', 'AWX Connection Test Message', '3 log records were dropped while the log aggregator was unavailable.']);
    assert.equal(got[2].level, 'WARNING');
    assert.equal(got[2].logger_name, 'awx');
    assert.equal(got[2].dropped, 3);
    assert.ok(t.logs.some((line) => line.includes('"log_records_dropped"') && line.includes('"dropped":3')));
    await off();
  });

  it('sends one activity_stream record per entry as AWX\'s emit_activity_stream_change shapes it', async () => {
    await tcpTo({ LOG_AGGREGATOR_LOGGERS: ['activity_stream'], LOG_AGGREGATOR_LEVEL: 'CRITICAL', LOG_AGGREGATOR_TOWER_UUID: 'stream' });
    const org = await t.http().post('/api/v2/organizations/').set('Authorization', ADMIN).send({ name: 'forwarded-org' }).expect(201);
    const [record] = await eventually(
      () => tcpRecords((r) => r.tower_uuid === 'stream' && r.object1 === 'organization'),
      (r) => r.length === 1,
      'the organization\'s entry',
    );
    assert.equal(record.logger_name, 'awx.analytics.activity_stream');
    assert.equal(record.level, 'INFO');
    assert.equal(record.message, 'Activity Stream update entry for organization');
    assert.deepEqual(record.changes, { name: 'forwarded-org', description: '', max_hosts: 0, id: org.body.id });
    assert.equal(record.actor, 'admin');
    assert.equal(record.operation, 'create');
    assert.equal(record.object2, '');
    assert.equal(record.relationship, '');
    assert.deepEqual((record.summary_fields as Record_).organization, [{ id: org.body.id, name: 'forwarded-org', description: '' }]);
    // The settings write that set the logger is recorded too, its secret-free value as the settings API reads it.
    assert.ok(tcpRecords((r) => r.tower_uuid === 'stream' && r.logger_name === 'awx.analytics.activity_stream').every((r) => !JSON.stringify(r).includes(AGGREGATOR_PASSWORD)));
  });

  it('holds a throttled event until its lock is unlocked, with its final attempts; the lock\'s record goes at once', async () => {
    await t.http().patch('/api/v2/settings/authentication/').set('Authorization', ADMIN).send({ LOGIN_LOCKOUT_DURATION: -1 }).expect(200);
    await tcpTo({ LOG_AGGREGATOR_LOGGERS: ['authentication'], LOG_AGGREGATOR_TOWER_UUID: 'locks' });
    const attempt = (password: string) => t.http().get('/api/v2/me/').set('X-Forwarded-For', '198.51.100.9').set('Authorization', basic('alice', password));
    for (let i = 0; i < 5; i++) await attempt('wrong-password').expect(401);
    for (let i = 0; i < 3; i++) await attempt('Alice-pass-1').expect(429);
    await eventually(() => tcpRecords((r) => r.tower_uuid === 'locks' && r.event === 'login_locked'), (r) => r.length === 1, 'login_locked');
    const lock = ((await t.http().get('/api/v2/login_locks/?ip_address=198.51.100.9').set('Authorization', ADMIN).expect(200)).body.results as { id: number }[])[0];
    await t.app.get((await import('../src/common/authentication-record')).AuthenticationRecord).flush();
    assert.equal(tcpRecords((r) => r.tower_uuid === 'locks' && r.reason === 'throttled').length, 0, 'held while locked');
    await t.http().delete(`/api/v2/login_locks/${lock.id}/`).set('Authorization', ADMIN).expect(204);
    const got = await eventually(() => tcpRecords((r) => r.tower_uuid === 'locks' && (r.event === 'login_unlocked' || r.reason === 'throttled')), (r) => r.length === 2, 'the unlock and the throttled event');
    assert.deepEqual(got.map((r) => r.event), ['login_unlocked', 'login_failed']);
    assert.equal((got[1].details as Record_).attempts, 3);
    await t.http().patch('/api/v2/settings/authentication/').set('Authorization', ADMIN).send({ LOGIN_LOCKOUT_DURATION: 0 }).expect(200);
    await off();
  });

  it('logs every delivery attempt with LOG_AGGREGATOR_RSYSLOGD_DEBUG, never the password', async () => {
    const mark = t.logs.length;
    await tcpTo({ LOG_AGGREGATOR_RSYSLOGD_DEBUG: true, LOG_AGGREGATOR_PASSWORD: AGGREGATOR_PASSWORD, LOG_AGGREGATOR_TOWER_UUID: 'debug' });
    await probe().expect(202);
    const lines = await eventually(() => t.logs.slice(mark).filter((l) => l.includes('"log_forward_attempt"')), (l) => l.length >= 1, 'an attempt line');
    const line = JSON.parse(lines[0]) as Record_;
    assert.equal(line.host, '127.0.0.1');
    assert.equal(line.port, rsyslog.tcpPort);
    assert.equal(line.protocol, 'tcp');
    assert.equal(line.outcome, 'delivered');
    assert.ok(!t.logs.join('\n').includes(AGGREGATOR_PASSWORD));
    await off();
  });
});

describe(`log records at a SIGTERM (SPEC §23, ${TEST_DB})`, () => {
  it('moves what waits in memory to the folder, and the next start delivers it first', async () => {
    const rsyslog = new RsyslogServer();
    await rsyslog.start();
    const db = await createTestDatabase();
    const spoolRoot = mkdtempSync(join(tmpdir(), 'svc-logspool-'));
    let t = await startTestApp({ db });
    try {
      await t.http().patch('/api/v2/settings/logging/').set('Authorization', ADMIN).send({
        LOG_AGGREGATOR_HOST: '127.0.0.1', LOG_AGGREGATOR_PORT: rsyslog.tcpPort, LOG_AGGREGATOR_PROTOCOL: 'tcp', LOG_AGGREGATOR_TYPE: 'other',
        LOG_AGGREGATOR_ENABLED: true, LOG_AGGREGATOR_TCP_TIMEOUT: 1, LOG_AGGREGATOR_MAX_DISK_USAGE_PATH: spoolRoot, LOG_AGGREGATOR_TOWER_UUID: 'restart', LOG_AGGREGATOR_LOGGERS: ['awx'],
      }).expect(200);
      await rsyslog.stop();
      for (let i = 0; i < 4; i++) await t.http().post('/api/v2/settings/logging/test/').set('Authorization', ADMIN).expect(400);
      await t.close();
      const folders = readdirSync(spoolRoot);
      assert.equal(folders.length, 1);
      assert.equal(readdirSync(join(spoolRoot, folders[0])).map((f) => readFileSync(join(spoolRoot, folders[0], f), 'utf8')).join('').split('\n').filter(Boolean).length, 4);
      await rsyslog.start();
      t = await startTestApp({ db });
      const got = await eventually(() => rsyslog.received('tcp').filter((r) => r.tower_uuid === 'restart'), (r) => r.length === 4, 'the records of the stopped app');
      assert.ok(got.every((r) => r.message === 'AWX Connection Test Message'));
      assert.ok(existsSync(join(spoolRoot, folders[0])));
    } finally {
      await t.close();
      await db.drop();
      await rsyslog.close();
      rmSync(spoolRoot, { recursive: true, force: true });
    }
  });
});
