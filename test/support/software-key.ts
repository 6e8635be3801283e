import { createHash, generateKeyPairSync, KeyObject, randomBytes, sign } from 'node:crypto';

/**
 * A software security key (WebAuthn, attestation "none", ES256), so that e2e tests can register keys and
 * sign assertions over HTTP the way a browser with a real key would, and forge the ones a real key never
 * would: another origin, an old challenge, a counter that went backwards (a cloned key).
 */
export class SoftwareKey {
  readonly credentialId = randomBytes(32);
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;

  /** `counter`: the signature counter the next assertion reports (a real key raises it at every use). */
  constructor(
    private readonly rpId: string,
    private readonly origin: string,
    public counter = 0,
  ) {
    ({ privateKey: this.privateKey, publicKey: this.publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' }));
  }

  get id(): string {
    return this.credentialId.toString('base64url');
  }

  /** The browser's answer to registration options (navigator.credentials.create), as JSON. */
  registration(challenge: string) {
    const jwk = this.publicKey.export({ format: 'jwk' });
    // COSE_Key (RFC 9053): kty EC2, alg ES256, crv P-256, x, y.
    const coseKey = cbor(new Map<number, unknown>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]]));
    const length = Buffer.alloc(2);
    length.writeUInt16BE(this.credentialId.length);
    // Flags: user present, user verified, attested credential data included.
    const authData = Buffer.concat([this.authenticatorData(0x45), Buffer.alloc(16), length, this.credentialId, coseKey]);
    const attestationObject = cbor(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: this.clientData('webauthn.create', challenge, this.origin).toString('base64url'), attestationObject: attestationObject.toString('base64url'), transports: ['usb'] },
      clientExtensionResults: {},
    };
  }

  /** The browser's answer to authentication options (navigator.credentials.get), as JSON; the counter moves on. */
  assertion(challenge: string, opts: { origin?: string; counter?: number } = {}) {
    if (opts.counter !== undefined) this.counter = opts.counter;
    else this.counter += 1;
    const authenticatorData = this.authenticatorData(0x05);
    const clientData = this.clientData('webauthn.get', challenge, opts.origin ?? this.origin);
    const signature = sign('sha256', Buffer.concat([authenticatorData, createHash('sha256').update(clientData).digest()]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: clientData.toString('base64url'), authenticatorData: authenticatorData.toString('base64url'), signature: signature.toString('base64url') },
      clientExtensionResults: {},
    };
  }

  private authenticatorData(flags: number): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    return Buffer.concat([createHash('sha256').update(this.rpId).digest(), Buffer.from([flags]), counter]);
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }
}

/** The CBOR (RFC 8949) an authenticator writes: integers, byte and text strings, maps. */
function cbor(value: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
    const b = Buffer.alloc(3);
    b[0] = (major << 5) | 25;
    b.writeUInt16BE(n, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Map) return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  throw new Error(`cbor: cannot encode ${typeof value}`);
}
