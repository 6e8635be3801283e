import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { browserLogin, cookieValue, submitLoginForm } from './support/browser-login';
import { CLIENT_ID, CLIENT_SECRET, OidcIdp } from './support/oidc-idp';
import { lastEvent, sessionCount } from './support/sso-assertions';

const ADMIN = basic('admin', ADMIN_PASSWORD);
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';
const NOTICE = 'You are accessing a U.S. Government (USG) Information System.\n<b>bold?</b> & "quotes" \'too\'\n<script>fetch("/x")</script>';
const FORMAT = 'Invalid format for custom logo. Must be a data URL with a base64-encoded GIF, PNG or JPEG image.';
const BASE64 = 'Invalid base64-encoded data in data URL.';
const MISSING = 'You must acknowledge the notice to log in.';

/** The login notice, the logo and the click-through (SPEC §22), through HTTP. */
describe('the login notice, logo and acknowledgement (SPEC §22)', () => {
  let t: TestApp;
  let idp: OidcIdp;

  before(async () => {
    t = await startTestApp();
    await t.createUser('alice', 'Alice-pass-1');
    idp = await OidcIdp.start({ redirectUri: `${t.config.publicUrl}/sso/complete/oidc/`, accounts: { 'sub-olga': { preferred_username: 'olga' } } });
    await t.settings({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp: { issuer: idp.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET } } });
  });
  after(async () => {
    await idp?.close();
    await t?.close();
  });
  beforeEach(async () => {
    await t.http().delete('/api/v2/settings/ui/').set('Authorization', ADMIN).expect(204);
  });

  const patchUi = (body: Record<string, unknown>, slug = 'ui') => t.http().patch(`/api/v2/settings/${slug}/`).set('Authorization', ADMIN).send(body);
  const readUi = async () => (await t.http().get('/api/v2/settings/ui/').set('Authorization', ADMIN).expect(200)).body as Record<string, unknown>;
  const consentOn = () => patchUi({ CUSTOM_LOGIN_INFO: NOTICE, LOGIN_CONSENT_REQUIRED: true }).expect(200);

  it('lists the ui category (UI) with AWX\'s two keys and ours, and refuses the keys AWX kept there', async () => {
    const list = await t.http().get('/api/v2/settings/').set('Authorization', ADMIN).expect(200);
    assert.deepEqual(list.body.results.find((c: { slug: string }) => c.slug === 'ui'), { url: '/api/v2/settings/ui/', slug: 'ui', name: 'UI' });
    assert.deepEqual(await readUi(), { CUSTOM_LOGIN_INFO: '', CUSTOM_LOGO: '', LOGIN_CONSENT_REQUIRED: false });
    for (const key of ['PENDO_TRACKING_STATE', 'MAX_UI_JOB_EVENTS']) {
      const res = await patchUi({ [key]: 'off' }).expect(400);
      assert.deepEqual(Object.keys(res.body), [key]);
    }
  });

  it('takes a PNG, JPEG or GIF data URL and refuses anything else with AWX\'s two messages, storing nothing of the write', async () => {
    await patchUi({ CUSTOM_LOGO: PNG }).expect(200);
    for (const logo of ['data:image/jpeg;base64,/9j/4AAQ', 'data:image/gif;base64,R0lGODlhAQABAAAAACw=', '']) {
      assert.equal((await patchUi({ CUSTOM_LOGO: logo }).expect(200)).body.CUSTOM_LOGO, logo);
    }
    const cases: [unknown, string][] = [
      ['https://example.com/logo.png', FORMAT],
      ['data:image/svg+xml;base64,PHN2Zz4=', FORMAT],
      ['data:image/png,iVBORw0KGgo=', FORMAT],
      ['data:image/png;base64,', FORMAT],
      ['data:image/png;base64,iVBO Rw0K', FORMAT],
      ['data:image/png;base64,A', BASE64],
      ['data:image/png;base64,abc', BASE64],
      ['data:image/png;base64,ab=c', BASE64],
      ['data:image/png;base64,a===', BASE64],
    ];
    for (const [logo, message] of cases) {
      const res = await patchUi({ CUSTOM_LOGIN_INFO: 'kept?', CUSTOM_LOGO: logo }).expect(400);
      assert.deepEqual(res.body, { CUSTOM_LOGO: [message] }, String(logo));
    }
    const tooLong = `data:image/png;base64,${'A'.repeat(524288 - 22 + 4)}`;
    assert.deepEqual((await patchUi({ CUSTOM_LOGO: tooLong }).expect(400)).body, { CUSTOM_LOGO: ['Ensure this field has no more than 524288 characters.'] });
    assert.deepEqual((await patchUi({ CUSTOM_LOGO: 7 }).expect(400)).body, { CUSTOM_LOGO: ['Not a valid string.'] });
    assert.deepEqual(await readUi(), { CUSTOM_LOGIN_INFO: '', CUSTOM_LOGO: '', LOGIN_CONSENT_REQUIRED: false });
  });

  it('takes a notice of up to 65,536 characters and refuses a longer one', async () => {
    await patchUi({ CUSTOM_LOGIN_INFO: 'x'.repeat(65536) }).expect(200);
    const res = await patchUi({ CUSTOM_LOGIN_INFO: 'y'.repeat(65537) }).expect(400);
    assert.deepEqual(res.body, { CUSTOM_LOGIN_INFO: ['Ensure this field has no more than 65536 characters.'] });
    assert.equal((await readUi()).CUSTOM_LOGIN_INFO, 'x'.repeat(65536));
  });

  it('refuses an acknowledgement with no notice to acknowledge, by any write that would leave one', async () => {
    for (const slug of ['ui', 'all']) {
      const res = await patchUi({ LOGIN_CONSENT_REQUIRED: true }, slug).expect(400);
      assert.deepEqual(Object.keys(res.body), ['LOGIN_CONSENT_REQUIRED'], slug);
    }
    await consentOn();
    const cleared = await patchUi({ CUSTOM_LOGIN_INFO: '' }).expect(400);
    assert.deepEqual(Object.keys(cleared.body), ['LOGIN_CONSENT_REQUIRED']);
    assert.equal((await readUi()).CUSTOM_LOGIN_INFO, NOTICE);
    await patchUi({ CUSTOM_LOGIN_INFO: '', LOGIN_CONSENT_REQUIRED: false }).expect(200);
  });

  it('gives the notice, the logo and the acknowledgement on the public GET /api/', async () => {
    const before = await t.http().get('/api/').expect(200);
    assert.equal(before.body.custom_logo, '');
    assert.equal(before.body.custom_login_info, '');
    assert.equal(before.body.login_consent_required, false);
    await patchUi({ CUSTOM_LOGO: PNG, CUSTOM_LOGIN_INFO: NOTICE, LOGIN_CONSENT_REQUIRED: true }).expect(200);
    const after = await t.http().get('/api/').expect(200);
    assert.equal(after.body.custom_logo, PNG);
    assert.equal(after.body.custom_login_info, NOTICE);
    assert.equal(after.body.login_consent_required, true);
  });

  it('shows the notice on the login page as escaped text in a Notice region, and the logo, with no box while no acknowledgement is asked', async () => {
    const plain = await t.http().get('/api/login/').expect(200);
    assert.doesNotMatch(plain.text, /aria-label="Notice"|alt="Logo"|name="consent"/);
    await patchUi({ CUSTOM_LOGO: PNG, CUSTOM_LOGIN_INFO: NOTICE }).expect(200);
    const page = await t.http().get('/api/login/').expect(200);
    const escaped = NOTICE.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
    assert.ok(page.text.includes(`<section class="login-notice" role="region" aria-label="Notice"><p>${escaped}</p></section>`), page.text);
    assert.ok(!page.text.includes('<script>fetch'), 'nothing of the notice is markup');
    assert.ok(page.text.includes(`<img class="login-logo" alt="Logo" src="${PNG}">`));
    assert.doesNotMatch(page.text, /name="consent"|login\.js|<button type="submit" disabled/);
    // No acknowledgement asked: the form logs in without one.
    await browserLogin(t, 'alice', 'Alice-pass-1');
  });

  it('refuses a form login without the tick before any password is read: 400, the alert, no session, nothing counted', async () => {
    await consentOn();
    const page = await t.http().get('/api/login/').expect(200);
    assert.match(page.text, /<input id="consent" name="consent" type="checkbox" value="accepted" autocomplete="off"><label for="consent">I acknowledge the notice<\/label>/);
    assert.match(page.text, /<button type="submit" disabled>Log in<\/button>/);
    assert.match(page.text, /<script src="\/static\/login\.js" defer><\/script>/);
    const sessions = await sessionCount(t);
    const logsBefore = t.logs.length;
    // More refusals than LOGIN_FAILURES_ALLOWED (5), with wrong passwords and with other values of the field.
    for (const fields of [{}, { consent: 'yes' }, { consent: '' }, {}, {}, {}, {}] as Record<string, string>[]) {
      const { response } = await submitLoginForm(t, 'alice', 'wrong-password', { fields });
      assert.equal(response.status, 400);
      assert.match(response.text, new RegExp(`<div class="alert" role="alert">${MISSING}</div>`));
      assert.equal(cookieValue(response.headers['set-cookie'], t.config.sessionCookieName), undefined);
    }
    const right = await submitLoginForm(t, 'alice', 'Alice-pass-1');
    assert.equal(right.response.status, 400, 'the right password without the tick is refused the same way');
    assert.equal(await sessionCount(t), sessions);
    assert.ok(!t.logs.slice(logsBefore).some((line) => line.includes('"event":"login"')), 'no login event, no failure counted');
    // The throttle counted none of them: the ticked login goes through at once.
    const ticked = await browserLogin(t, 'alice', 'Alice-pass-1', { fields: { consent: 'accepted' } });
    assert.equal(ticked.response.headers.location, '/accounts/profile/');
    const event = lastEvent(t, 'login')!;
    assert.equal(event.outcome, 'success');
    assert.equal(event.username, 'alice');
    assert.equal(event.consent, 'accepted');
  });

  it('records no consent in the login event while none is asked', async () => {
    await browserLogin(t, 'alice', 'Alice-pass-1');
    assert.equal(lastEvent(t, 'login')!.consent, undefined);
  });

  it('leaves basic authentication and bearer tokens as they were (not interactive logons)', async () => {
    await consentOn();
    await t.http().get('/api/v2/me/').set('Authorization', basic('alice', 'Alice-pass-1')).expect(200);
    const token = await t.http().post('/api/v2/tokens/').set('Authorization', basic('alice', 'Alice-pass-1')).send({}).expect(201);
    await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${token.body.token}`).expect(200);
  });

  it('sends an SSO start without the tick back to the login page, never to the provider; the page\'s entry carries it', async () => {
    await consentOn();
    const noTick = await t.http().get('/sso/login/oidc/?idp=corp&next=/api/v2/me/').redirects(0).expect(302);
    assert.equal(noTick.headers.location, '/api/login/?next=%2Fapi%2Fv2%2Fme%2F');
    const bare = await t.http().get('/sso/login/oidc/?idp=corp').redirects(0).expect(302);
    assert.equal(bare.headers.location, '/api/login/');
    const ticked = await t.http().get('/sso/login/oidc/?idp=corp&consent=accepted').redirects(0).expect(302);
    assert.ok(ticked.headers.location.startsWith(`${idp.issuer}/auth?`), ticked.headers.location);
    const page = await t.http().get('/api/login/?next=/api/v2/me/').expect(200);
    assert.ok(
      page.text.includes('<a class="button" aria-disabled="true" data-href="/sso/login/oidc/?idp=corp&amp;consent=accepted&amp;next=%2Fapi%2Fv2%2Fme%2F">'),
      page.text,
    );
    await patchUi({ LOGIN_CONSENT_REQUIRED: false }).expect(200);
    const open = await t.http().get('/sso/login/oidc/?idp=corp').redirects(0).expect(302);
    assert.ok(open.headers.location.startsWith(`${idp.issuer}/auth?`));
    assert.match((await t.http().get('/api/login/').expect(200)).text, /<a class="button" href="\/sso\/login\/oidc\/\?idp=corp">/);
  });
});
