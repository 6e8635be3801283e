import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ATTRIBUTE, CODE, readRequest, replyPacket, ReplySpec, requestMacVerifies, revealPassword } from '../../test/support/radius-replies';
import { accessRequest, octetsText, verifiedReply } from './radius-packets';
import { radiusSettingsCheck } from './radius-settings';

const SECRET = 'unit-shared-secret';
const PASSWORD = 'Pässword with spaces, 25 octets+';

describe('RADIUS packets (SPEC §20, RFC 2865, RFC 3579)', () => {
  const request = accessRequest({ username: 'rita', password: PASSWORD, nasIdentifier: 'awx-test', secret: SECRET });
  const reply = (spec: Partial<ReplySpec> = {}) =>
    replyPacket({ code: CODE.accessAccept, identifier: request.identifier, requestAuthenticator: request.authenticator, secret: SECRET, ...spec });

  it('sends Message-Authenticator first and valid, then User-Name, the hidden User-Password and NAS-Identifier', () => {
    const sent = readRequest(request.packet);
    assert.equal(sent.code, CODE.accessRequest);
    assert.deepEqual(sent.attributes.map(([type]) => type), [ATTRIBUTE.messageAuthenticator, ATTRIBUTE.userName, ATTRIBUTE.userPassword, ATTRIBUTE.nasIdentifier]);
    assert.ok(requestMacVerifies(request.packet, SECRET));
    assert.ok(!requestMacVerifies(request.packet, `${SECRET}x`));
    assert.equal(sent.attributes[1][1].toString(), 'rita');
    const hidden = sent.attributes[2][1];
    assert.equal(hidden.length % 16, 0);
    assert.ok(!request.packet.includes(Buffer.from('spaces')), 'the password never travels in clear');
    assert.equal(revealPassword(hidden, SECRET, sent.authenticator), PASSWORD);
    assert.equal(sent.attributes[3][1].toString(), 'awx-test');
  });

  it('draws a fresh Request Authenticator for every request', () => {
    const again = accessRequest({ username: 'rita', password: PASSWORD, nasIdentifier: 'awx', secret: SECRET });
    assert.notDeepEqual(again.authenticator, request.authenticator);
    assert.notDeepEqual(readRequest(again.packet).attributes[2][1], readRequest(request.packet).attributes[2][1]);
  });

  it('takes a reply whose authenticators both verify, with its attributes as text or hex', () => {
    const verdict = verifiedReply(request, reply({ attributes: [[ATTRIBUTE.class, 'awx-admins'], [ATTRIBUTE.class, Buffer.from([0, 1, 255])], [ATTRIBUTE.filterId, 'ops']] }), SECRET);
    assert.deepEqual(verdict, { code: 'Access-Accept', attributes: { Class: ['awx-admins', '0x0001ff'], 'Filter-Id': ['ops'] } });
    assert.deepEqual(verifiedReply(request, reply({ code: CODE.accessChallenge }), SECRET), { code: 'Access-Challenge', attributes: {} });
  });

  it('drops every reply that does not prove itself, whatever its code', () => {
    const cases: [string, Buffer, string][] = [
      ['another Identifier', reply({ identifier: (request.identifier + 1) % 256 }), 'wrong_identifier'],
      ['a forged Response Authenticator', reply({ responseAuthenticator: 'wrong' }), 'bad_response_authenticator'],
      ['another secret', replyPacket({ code: CODE.accessAccept, identifier: request.identifier, requestAuthenticator: request.authenticator, secret: 'other' }), 'bad_response_authenticator'],
      ['no Message-Authenticator (BlastRADIUS)', reply({ messageAuthenticator: 'none' }), 'no_message_authenticator'],
      ['a wrong Message-Authenticator', reply({ messageAuthenticator: 'wrong' }), 'bad_message_authenticator'],
      ['two Message-Authenticators', reply({ messageAuthenticator: 'twice' }), 'bad_message_authenticator'],
      ['a truncated header', reply().subarray(0, 12), 'malformed'],
      ['a Length beyond the datagram', Buffer.concat([reply().subarray(0, 2), Buffer.from([0x0f, 0xff]), reply().subarray(4)]), 'malformed'],
    ];
    for (const [name, datagram, why] of cases) assert.equal(verifiedReply(request, datagram, SECRET), why, name);
    // An attribute that overruns the packet: Length covers it, its own length does not fit.
    const overrun = reply({ attributes: [[ATTRIBUTE.filterId, 'x']] });
    overrun[20 + 1] = 200;
    assert.equal(verifiedReply(request, overrun, SECRET), 'malformed');
  });

  it('ignores octets past Length (RFC 2865 §3: padding)', () => {
    const padded = Buffer.concat([reply({ code: CODE.accessReject }), Buffer.from('padding')]);
    assert.deepEqual(verifiedReply(request, padded, SECRET), { code: 'Access-Reject', attributes: {} });
  });

  it('shows octets as UTF-8 text when printable, else as hex', () => {
    assert.equal(octetsText(Buffer.from('Grüße')), 'Grüße');
    assert.equal(octetsText(Buffer.from([0xc3, 0x28])), '0xc328');
    assert.equal(octetsText(Buffer.from('a\nb')), '0x610a62');
  });
});

describe('RADIUS settings rules (SPEC §20)', () => {
  it('needs a secret for a server, and the secret again in clear for a new address', () => {
    const current: Record<string, unknown> = { RADIUS_SERVER: 'radius.example.org', RADIUS_PORT: 1812, RADIUS_SECRET: 'stored' };
    const check = radiusSettingsCheck((key) => current[key]);
    const none = new Set<string>();
    assert.deepEqual(Object.keys(check({ ...current, RADIUS_SECRET: '' }, new Set(['RADIUS_SECRET'])) ?? {}), ['RADIUS_SECRET']);
    assert.equal(check({ ...current }, none), undefined, 'nothing moved');
    assert.equal(check({ ...current, RADIUS_SERVER: 'RADIUS.example.org' }, new Set(['RADIUS_SERVER'])), undefined, 'host names compare without case');
    assert.deepEqual(Object.keys(check({ ...current, RADIUS_PORT: 1645 }, new Set(['RADIUS_PORT'])) ?? {}), ['RADIUS_SECRET']);
    assert.deepEqual(Object.keys(check({ ...current, RADIUS_SERVER: '192.0.2.9' }, new Set(['RADIUS_SERVER'])) ?? {}), ['RADIUS_SECRET']);
    assert.equal(check({ ...current, RADIUS_SERVER: '192.0.2.9' }, new Set(['RADIUS_SERVER', 'RADIUS_SECRET'])), undefined, 'the same secret typed again in clear');
    assert.equal(check({ ...current, RADIUS_SERVER: '' }, new Set(['RADIUS_SERVER'])), undefined, 'turning it off needs nothing');
  });
});
