import { createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * RADIUS packets written by hand from RFC 2865 §3 and RFC 3579 §3.2, apart from the service's code and from
 * the `radius` library it uses: what a forger (or a server configured without the BlastRADIUS fix) sends,
 * and a reading of the requests the service sends, so that tests check them against the RFCs themselves.
 */

export const ATTRIBUTE = { userName: 1, userPassword: 2, filterId: 11, class: 25, nasIdentifier: 32, messageAuthenticator: 80 } as const;
export const CODE = { accessRequest: 1, accessAccept: 2, accessReject: 3, accessChallenge: 11 } as const;

export interface ReadRequest {
  code: number;
  identifier: number;
  authenticator: Buffer;
  attributes: [number, Buffer][];
}

/** An Access-Request as it went on the wire. */
export function readRequest(packet: Buffer): ReadRequest {
  const attributes: [number, Buffer][] = [];
  for (let at = 20; at < packet.readUInt16BE(2); at += packet[at + 1]) attributes.push([packet[at], packet.subarray(at + 2, at + packet[at + 1])]);
  return { code: packet[0], identifier: packet[1], authenticator: Buffer.from(packet.subarray(4, 20)), attributes };
}

/** Whether a request's Message-Authenticator is the HMAC-MD5 of the packet with it zeroed (RFC 3579 §3.2). */
export function requestMacVerifies(packet: Buffer, secret: string): boolean {
  const at = 20; // the service puts it first
  if (packet[at] !== ATTRIBUTE.messageAuthenticator || packet[at + 1] !== 18) return false;
  const zeroed = Buffer.from(packet);
  zeroed.fill(0, at + 2, at + 18);
  return createHmac('md5', secret).update(zeroed).digest().equals(packet.subarray(at + 2, at + 18));
}

/** RFC 2865 §5.2 backwards: the password a User-Password hides. */
export function revealPassword(hidden: Buffer, secret: string, authenticator: Buffer): string {
  const out = Buffer.alloc(hidden.length);
  let previous = authenticator;
  for (let i = 0; i < hidden.length; i += 16) {
    const pad = createHash('md5').update(secret).update(previous).digest();
    for (let j = 0; j < 16; j++) out[i + j] = hidden[i + j] ^ pad[j];
    previous = hidden.subarray(i, i + 16);
  }
  return out.toString('utf8').replace(/\0+$/, '');
}

export interface ReplySpec {
  code: number;
  identifier: number;
  /** The Request Authenticator of the request answered. */
  requestAuthenticator: Buffer;
  attributes?: [number, string | Buffer][];
  secret: string;
  /** `none`: no Message-Authenticator (a server without the BlastRADIUS fix); `wrong`: one made with another secret. */
  messageAuthenticator?: 'valid' | 'none' | 'wrong' | 'twice';
  responseAuthenticator?: 'valid' | 'wrong';
}

/** A reply: Message-Authenticator computed first (over the Request Authenticator), then the Response Authenticator. */
export function replyPacket(spec: ReplySpec): Buffer {
  const macs = { valid: 1, wrong: 1, twice: 2, none: 0 }[spec.messageAuthenticator ?? 'valid'];
  const attributes = (spec.attributes ?? []).map(([type, value]) => [type, Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8')] as const);
  for (let i = 0; i < macs; i++) attributes.push([ATTRIBUTE.messageAuthenticator, Buffer.alloc(16)]);
  const body = Buffer.concat(attributes.map(([type, value]) => Buffer.concat([Buffer.from([type, value.length + 2]), value])));
  const packet = Buffer.concat([Buffer.from([spec.code, spec.identifier, 0, 0]), spec.requestAuthenticator, body]);
  packet.writeUInt16BE(packet.length, 2);
  if (macs) {
    const mac = createHmac('md5', spec.messageAuthenticator === 'wrong' ? `${spec.secret}-not` : spec.secret).update(packet).digest();
    for (let at = 20; at < packet.length; at += packet[at + 1]) if (packet[at] === ATTRIBUTE.messageAuthenticator) mac.copy(packet, at + 2);
  }
  const response = spec.responseAuthenticator === 'wrong' ? randomBytes(16) : createHash('md5').update(packet).update(spec.secret).digest();
  response.copy(packet, 4);
  return packet;
}
