import { createHash, createHmac, randomInt, timingSafeEqual } from 'node:crypto';
// The library keeps its dictionary and the packet being coded on its module object (`this`): called on it, not detached.
import radius = require('radius');

/** RFC 2865 §3: Code, Identifier, Length, Authenticator. */
const HEADER = 20;
const AUTHENTICATOR = { start: 4, end: 20 };
const MAX_PACKET = 4096;
/** RFC 3579 §3.2: type 80, sixteen octets of HMAC-MD5. */
const MESSAGE_AUTHENTICATOR = 80;
const MAC_LENGTH = 16;
/** RFC 2865 §5.2: a User-Password is at most 128 octets. */
export const MAX_PASSWORD_OCTETS = 128;
/** RFC 2865 §5: an attribute holds at most 253 octets. */
export const MAX_ATTRIBUTE_OCTETS = 253;

export const ACCESS_ACCEPT = 'Access-Accept';

/** One Access-Request as sent, and what its replies are checked against. */
export interface AccessRequest {
  packet: Buffer;
  identifier: number;
  /** The Request Authenticator: sixteen fresh random octets (RFC 2865 §3). */
  authenticator: Buffer;
}

/** A reply that passed every check: its code and its attributes as text (Message-Authenticator left out). */
export interface RadiusReply {
  code: string;
  attributes: Record<string, string[]>;
}

/** Why a datagram was not taken as the reply (it is dropped without a word, and the wait goes on). */
export type Discarded =
  | 'wrong_source'
  | 'malformed'
  | 'wrong_identifier'
  | 'bad_response_authenticator'
  | 'no_message_authenticator'
  | 'bad_message_authenticator';

/**
 * The Access-Request of SPEC §20: Message-Authenticator first (the BlastRADIUS mitigation, CVE-2024-3596),
 * then User-Name, User-Password and NAS-Identifier. The library encodes the attributes, hides the password
 * with the secret and the Request Authenticator (RFC 2865 §5.2) and draws that authenticator; it would put a
 * Message-Authenticator last, so the request carries a zeroed one in first place and its HMAC-MD5 is
 * computed here, over the whole packet (RFC 3579 §3.2).
 */
export function accessRequest(input: { username: string; password: string; nasIdentifier: string; secret: string }): AccessRequest {
  const identifier = randomInt(256);
  const packet = radius.encode({
    code: 'Access-Request',
    identifier,
    secret: input.secret,
    add_message_authenticator: false,
    attributes: [
      ['Message-Authenticator', Buffer.alloc(MAC_LENGTH)],
      ['User-Name', input.username],
      ['User-Password', input.password],
      ['NAS-Identifier', input.nasIdentifier],
    ],
  });
  createHmac('md5', input.secret).update(packet).digest().copy(packet, HEADER + 2);
  return { packet, identifier, authenticator: Buffer.from(packet.subarray(AUTHENTICATOR.start, AUTHENTICATOR.end)) };
}

/**
 * A datagram from the server's address and port, checked as SPEC §20 says before anything in it is
 * believed: the request's Identifier, a Response Authenticator that verifies with the secret (RFC 2865 §3),
 * and exactly one Message-Authenticator that verifies (RFC 3579 §3.2; a reply without one is not trusted,
 * whatever its code). Both are compared in constant time. The library's own verify_response is not used: it
 * compares digests as UTF-8 text (two different digests can read alike) and accepts a reply without a
 * Message-Authenticator.
 */
export function verifiedReply(request: AccessRequest, datagram: Buffer, secret: string): RadiusReply | Discarded {
  if (datagram.length < HEADER) return 'malformed';
  const length = datagram.readUInt16BE(2);
  // Octets past Length are padding, to be ignored (RFC 2865 §3).
  if (length < HEADER || length > MAX_PACKET || length > datagram.length) return 'malformed';
  const packet = datagram.subarray(0, length);
  if (packet[1] !== request.identifier) return 'wrong_identifier';
  const attributes = attributeOffsets(packet);
  if (!attributes) return 'malformed';
  const expected = createHash('md5')
    .update(packet.subarray(0, AUTHENTICATOR.start))
    .update(request.authenticator)
    .update(packet.subarray(HEADER))
    .update(secret)
    .digest();
  if (!timingSafeEqual(expected, packet.subarray(AUTHENTICATOR.start, AUTHENTICATOR.end))) return 'bad_response_authenticator';
  const macs = attributes.filter((at) => packet[at] === MESSAGE_AUTHENTICATOR);
  if (!macs.length) return 'no_message_authenticator';
  if (macs.length > 1 || packet[macs[0] + 1] !== 2 + MAC_LENGTH) return 'bad_message_authenticator';
  const value = macs[0] + 2;
  const signed = Buffer.from(packet);
  request.authenticator.copy(signed, AUTHENTICATOR.start);
  signed.fill(0, value, value + MAC_LENGTH);
  const mac = createHmac('md5', secret).update(signed).digest();
  if (!timingSafeEqual(mac, packet.subarray(value, value + MAC_LENGTH))) return 'bad_message_authenticator';
  try {
    const decoded = radius.decode({ packet: Buffer.from(packet), secret });
    return { code: decoded.code, attributes: attributeText(decoded.attributes as Record<string, unknown>) };
  } catch {
    return 'malformed';
  }
}

/** Where each attribute starts; null when one overruns the packet or is shorter than its own header. */
function attributeOffsets(packet: Buffer): number[] | null {
  const offsets: number[] = [];
  for (let at = HEADER; at < packet.length; at += packet[at + 1]) {
    if (at + 2 > packet.length || packet[at + 1] < 2 || at + packet[at + 1] > packet.length) return null;
    offsets.push(at);
  }
  return offsets;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Octets as UTF-8 text when they are printable text, else `0x…` hex (SPEC §20). */
export function octetsText(value: Buffer): string {
  try {
    const text = utf8.decode(value);
    if (!/[\u0000-\u001f\u007f]/.test(text)) return text;
  } catch {
    // not UTF-8: shown as hex below
  }
  return `0x${value.toString('hex')}`;
}

/**
 * The library's decoded attributes as text lists by name: octets as text or hex, numbers and names of enumerated
 * values as the dictionary reads them, a vendor's attributes under their own names. Message-Authenticator is
 * proof, not content, and is left out.
 */
function attributeText(decoded: Record<string, unknown>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const add = (name: string, value: unknown) => {
    if (name === 'Message-Authenticator') return;
    if (Array.isArray(value)) return value.forEach((item) => add(name, item));
    if (name === 'Vendor-Specific' && value && typeof value === 'object' && !Buffer.isBuffer(value)) {
      return Object.entries(value).forEach(([vendorName, vendorValue]) => add(vendorName, vendorValue));
    }
    const text = Buffer.isBuffer(value) ? octetsText(value) : value instanceof Date ? value.toISOString() : String(value);
    (out[name] ??= []).push(text);
  };
  for (const [name, value] of Object.entries(decoded)) add(name, value);
  return out;
}
