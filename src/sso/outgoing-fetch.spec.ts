import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { selfSignedCertificate } from '../../test/support/x509';
import { createOutgoingFetch, trustedCas } from './outgoing-fetch';

describe('outgoing HTTPS for OpenID Connect (SPEC §7: system CAs plus NODE_EXTRA_CA_CERTS)', () => {
  const keys = selfSignedCertificate('127.0.0.1', 1, { ips: ['127.0.0.1'] });
  const dir = mkdtempSync(join(tmpdir(), 'svc-ca-'));
  const caFile = join(dir, 'extra-ca.pem');
  let server: https.Server;
  let url = '';

  before(async () => {
    writeFileSync(caFile, keys.certPem);
    server = https.createServer({ key: keys.privateKeyPem, cert: keys.certPem }, (req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, body, accept: req.headers.accept }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a server whose CA is not trusted', async () => {
    const fetch = createOutgoingFetch(trustedCas(undefined));
    await assert.rejects(fetch(url), /self[- ]signed|unable to verify/i);
  });

  it('trusts a CA from the file named by NODE_EXTRA_CA_CERTS, and keeps the system bundle', async () => {
    const cas = trustedCas(caFile);
    assert.ok(cas.length > trustedCas(undefined).length);
    const fetch = createOutgoingFetch(cas);
    const res = await fetch(url, { method: 'POST', headers: { accept: 'application/json' }, body: new URLSearchParams({ grant_type: 'authorization_code' }) });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { method: 'POST', body: 'grant_type=authorization_code', accept: 'application/json' });
  });
});
