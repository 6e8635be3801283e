import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { TestApp } from './test-app';

/** RFC 7636 Appendix B. */
export const RFC7636_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
export const RFC7636_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface RegisteredApp {
  id: number;
  clientId: string;
  clientSecret?: string;
  body: Record<string, unknown>;
}

/** Registers an application through the API, as its owner would. */
export async function registerApp(t: TestApp, owner: string, fields: Record<string, unknown>): Promise<RegisteredApp> {
  const res = await t.http().post('/api/v2/applications/').set('Authorization', owner).send({ name: 'app', ...fields });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { id: res.body.id, clientId: res.body.client_id, clientSecret: res.body.client_secret, body: res.body };
}

export function clientBasic(clientId: string, secret = ''): string {
  return 'Basic ' + Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64');
}

/** POST /api/o/token/ form-encoded, with client authentication in the basic header when a secret is given. */
export function tokenRequest(t: TestApp, form: Record<string, string>, client?: { clientId: string; secret?: string }) {
  const req = t.http().post('/api/o/token/').type('form');
  if (client?.secret !== undefined) req.set('Authorization', clientBasic(client.clientId, client.secret));
  else if (client) form = { client_id: client.clientId, ...form };
  return req.send(form);
}

/** The query (code flow) or fragment (implicit flow) parameters of a redirect. */
export function redirectParams(location: string | undefined, part: 'query' | 'fragment' = 'query'): URLSearchParams {
  assert.ok(location, 'a Location header');
  const url = new URL(location!);
  return new URLSearchParams(part === 'query' ? url.search : url.hash.slice(1));
}

export function csrfFromPage(html: string): string {
  const match = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(html);
  assert.ok(match, 'the page carries a CSRF token');
  return match![1];
}

export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1]] = m[2].replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#39;/g, "'");
  }
  return fields;
}

/** Every secret in the captured log lines, by its recognisable prefix. */
export function secretsInLogs(t: TestApp, secrets: string[]): string[] {
  const joined = t.logs.join('\n');
  return secrets.filter((s) => s && joined.includes(s));
}

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** POST /api/o/device_authorization/ (RFC 8628 §3.1), client authentication as tokenRequest does it. */
export function deviceAuthorization(t: TestApp, client: { clientId: string; secret?: string }, form: Record<string, string> = {}) {
  const req = t.http().post('/api/o/device_authorization/').type('form');
  if (client.secret !== undefined) req.set('Authorization', clientBasic(client.clientId, client.secret));
  else form = { client_id: client.clientId, ...form };
  return req.send(form);
}

/** The device's poll of the token endpoint (RFC 8628 §3.4). */
export function devicePoll(t: TestApp, deviceCode: string, client: { clientId: string; secret?: string }) {
  return tokenRequest(t, { grant_type: DEVICE_CODE_GRANT, device_code: deviceCode }, client);
}

interface FormAgent {
  post(url: string): import('supertest').Test;
}

/**
 * What a signed-in person does on /api/o/device/: types the code (the form posted with the CSRF header
 * as the page's script-free form would send its hidden field), then presses Authorize or Deny on the
 * consent page. Returns the last answer.
 */
export async function decideDevice(agent: FormAgent, csrf: string, userCode: string, decision: 'authorize' | 'deny' = 'authorize') {
  const consent = await agent.post('/api/o/device/').type('form').send({ csrfmiddlewaretoken: csrf, user_code: userCode });
  assert.equal(consent.status, 200, consent.text);
  assert.match(consent.text, /action="\/api\/o\/device\/"/);
  return agent.post('/api/o/device/').type('form').send({ ...hiddenFields(consent.text), decision });
}
