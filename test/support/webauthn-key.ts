import { createHash, generateKeyPairSync, KeyObject, randomBytes, sign } from 'node:crypto';

type Cbor = number | string | Buffer | Map<Cbor, Cbor>;

/** CBOR (RFC 8949) for what WebAuthn's attestation object and a COSE key hold: integers, byte and text strings, maps. */
function cbor(value: Cbor): Buffer {
  const head = (major: number, length: number) => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
    const b = Buffer.alloc(3);
    b[0] = (major << 5) | 25;
    b.writeUInt16BE(length, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/**
 * A security key in software (a P-256 key pair, "none" attestation), answering the service's WebAuthn
 * options as a browser with a USB key would: a registration, then assertions with a rising counter.
 * `origin` is the service's PUBLIC_URL origin, `rpId` its host.
 */
export class SoftwareKey {
  private readonly privateKey: KeyObject;
  private readonly publicJwk: { x: string; y: string };
  readonly credentialId = randomBytes(32);
  private counter = 0;

  constructor(
    private readonly origin: string,
    private readonly rpId: string,
  ) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicJwk = pair.publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  }

  /** The `credential` of `POST /api/v2/me/mfa/security_keys/` for these creation options. */
  register(options: { challenge: string }): Record<string, unknown> {
    const cose = new Map<Cbor, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(this.publicJwk.x, 'base64url')], [-3, Buffer.from(this.publicJwk.y, 'base64url')]]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    // Flags: user present (0x01) and attested credential data (0x40).
    const authData = Buffer.concat([this.rpIdHash(), Buffer.from([0x41]), this.counterBytes(), Buffer.alloc(16), idLength, this.credentialId, cbor(cose)]);
    const attestationObject = cbor(new Map<Cbor, Cbor>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    return {
      id: b64url(this.credentialId),
      rawId: b64url(this.credentialId),
      type: 'public-key',
      response: { clientDataJSON: this.clientData('webauthn.create', options.challenge), attestationObject: b64url(attestationObject), transports: ['usb'] },
      clientExtensionResults: {},
    };
  }

  /** An assertion for these request options (the second step's `credential`, as JSON). */
  assert(options: { challenge: string }): Record<string, unknown> {
    this.counter++;
    const authData = Buffer.concat([this.rpIdHash(), Buffer.from([0x01]), this.counterBytes()]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge);
    const signed = Buffer.concat([authData, createHash('sha256').update(Buffer.from(clientDataJSON, 'base64url')).digest()]);
    return {
      id: b64url(this.credentialId),
      rawId: b64url(this.credentialId),
      type: 'public-key',
      response: { clientDataJSON, authenticatorData: b64url(authData), signature: b64url(sign('sha256', signed, this.privateKey)) },
      clientExtensionResults: {},
    };
  }

  private clientData(type: string, challenge: string): string {
    return b64url(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  private rpIdHash(): Buffer {
    return createHash('sha256').update(this.rpId).digest();
  }

  private counterBytes(): Buffer {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(this.counter);
    return b;
  }
}
