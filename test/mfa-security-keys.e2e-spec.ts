import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, cookieValue } from './support/browser-login';
import { SoftwareKey } from './support/software-key';
import { basic, startTestApp, TestApp } from './support/test-app';

const INVALID = 'The code is not valid. Try again.';

/**
 * Security keys at the second step of a login (SPEC §16; issue 40): the assertions a key's holder never
 * makes are refused — a key nobody registered, another user's key, an assertion made for another origin, an
 * assertion replayed from an earlier login, and a cloned key whose counter is behind the original's — each
 * with the second-step page again (401) and no session, while the right key's fresh assertion logs in.
 * The keys are software authenticators (test/support/software-key.ts) verified by @simplewebauthn/server.
 */
describe('security key assertions at the second step (SPEC §16)', () => {
  let t: TestApp;
  let rpId: string;
  let origin: string;
  const keys: Record<string, SoftwareKey> = {};

  /** A user whose one factor is a security key registered through the API. */
  async function withKey(username: string): Promise<SoftwareKey> {
    await t.createUser(username, 'Strong-pass-1');
    const auth = basic(username, 'Strong-pass-1');
    const key = new SoftwareKey(rpId, origin);
    const options = await t.http().post('/api/v2/me/mfa/security_keys/options/').set('Authorization', auth).send({}).expect(200);
    await t.http().post('/api/v2/me/mfa/security_keys/').set('Authorization', auth).send({ name: 'usb key', credential: key.registration(options.body.challenge) }).expect(201);
    return key;
  }

  /** The password step of the form: the second-step page, with the challenge its key button would sign. */
  async function passwordStep(username: string) {
    const agent = t.agent();
    const page = await agent.get('/api/login/').expect(200);
    const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
    const res = await agent.post('/api/login/').set('X-CSRFToken', csrf).set('Referer', `${t.url}/api/login/`).type('form')
      .send({ username, password: 'Strong-pass-1', next: '/api/v2/me/' }).expect(200);
    assert.match(res.text, /<h1>Two-step verification<\/h1>/);
    const options = /data-options="([^"]*)"/.exec(res.text);
    assert.ok(options, 'the page offers the security key');
    const challenge = (JSON.parse(options[1].replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')) as { challenge: string }).challenge;
    return { agent, csrf, challenge };
  }

  function sendAssertion(agent: Agent, csrf: string, assertion: unknown) {
    return agent.post('/api/login/mfa/').set('X-CSRFToken', csrf).set('Referer', `${t.url}/api/login/`).type('form').send({ credential: JSON.stringify(assertion) });
  }

  /** A refused assertion: the second-step page again with its message, no session, and nothing logged in. */
  async function refused(agent: Agent, csrf: string, assertion: unknown, reason: RegExp) {
    const logged = t.logs.length;
    const res = await sendAssertion(agent, csrf, assertion);
    assert.equal(res.status, 401, res.text);
    assert.ok(res.text.includes(INVALID), res.text);
    assert.equal(cookieValue(res.headers['set-cookie'], t.config.sessionCookieName), undefined);
    await agent.get('/api/v2/me/').expect(401);
    const failure = t.logs.slice(logged).find((line) => line.includes('"event":"mfa_failed"'));
    assert.ok(failure, 'the refusal is logged');
    assert.match(failure, reason);
  }

  /** An accepted assertion: the 302 to `next`, then the session works. */
  async function accepted(agent: Agent, csrf: string, assertion: unknown) {
    const res = await sendAssertion(agent, csrf, assertion);
    assert.equal(res.status, 302, res.text);
    assert.equal(res.headers.location, '/api/v2/me/');
    await agent.get('/api/v2/me/').expect(200);
  }

  before(async () => {
    t = await startTestApp();
    ({ hostname: rpId, origin } = new URL(t.config.publicUrl));
    keys.kim = await withKey('kim');
    keys.lou = await withKey('lou');
  });
  after(() => t?.close());

  it("refuses a key nobody registered, another user's key and an assertion made for another origin; the right key then logs in", async () => {
    const { agent, csrf, challenge } = await passwordStep('kim');
    await refused(agent, csrf, new SoftwareKey(rpId, origin).assertion(challenge), /"reason":"unknown key"/);
    // lou's key signs kim's challenge properly: it is still not one of kim's keys.
    await refused(agent, csrf, keys.lou.assertion(challenge), /"reason":"unknown key"/);
    await refused(agent, csrf, keys.kim.assertion(challenge, { origin: 'https://login.evil.example' }), /origin/i);
    await accepted(agent, csrf, keys.kim.assertion(challenge));
    // lou's own login with the same key works: the refusal above was about whose key it is.
    const lou = await passwordStep('lou');
    await accepted(lou.agent, lou.csrf, keys.lou.assertion(lou.challenge));
  });

  it("refuses an assertion replayed from an earlier login, and a cloned key whose counter is behind the original's", async () => {
    t.clock.advance(901); // a new throttle window for kim
    const first = await passwordStep('kim');
    const used = keys.kim.assertion(first.challenge, { counter: 10 });
    await accepted(first.agent, first.csrf, used);

    const second = await passwordStep('kim');
    assert.notEqual(second.challenge, first.challenge);
    // The very assertion that logged in before: signed over the earlier login's challenge.
    await refused(second.agent, second.csrf, used, /challenge/i);
    // A clone of the key that has signed less often than the original (counter 7, then 10, under the stored 10).
    await refused(second.agent, second.csrf, keys.kim.assertion(second.challenge, { counter: 7 }), /counter/i);
    await refused(second.agent, second.csrf, keys.kim.assertion(second.challenge, { counter: 10 }), /counter/i);
    await accepted(second.agent, second.csrf, keys.kim.assertion(second.challenge, { counter: 11 }));
  });
});
