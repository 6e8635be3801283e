import { createCipheriv, createDecipheriv, createHash, createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = '$encrypted$AESGCM$';

/** Encryption and keyed hashing with SECRET_KEY, for secrets the service must read back (AWX's `$encrypted$`). */
export class SecretBox {
  private readonly key: Buffer;
  private readonly hmacKey: Buffer;
  private readonly sealKey: Buffer;

  constructor(secretKey: string) {
    this.key = createHash('sha256').update('encryption:' + secretKey).digest();
    this.hmacKey = createHash('sha256').update('hmac:' + secretKey).digest();
    this.sealKey = createHash('sha256').update('seal:' + secretKey).digest();
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  decrypt(stored: string): string {
    if (!stored.startsWith(PREFIX)) return stored;
    const raw = Buffer.from(stored.slice(PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  /**
   * Authenticated encryption of a value the service hands to a browser and reads back (AES-256-GCM, base64url,
   * no prefix: it travels in cookies and URLs). `purpose` is associated data: a value sealed for one purpose
   * never opens as another's.
   */
  seal(plain: string, purpose: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    cipher.setAAD(Buffer.from(purpose, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** What `seal` sealed for `purpose`, or null for anything altered, truncated or sealed for another purpose or key. */
  open(sealed: string, purpose: string): string | null {
    const raw = Buffer.from(sealed, 'base64url');
    if (raw.length < 29) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.sealKey, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(purpose, 'utf8'));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }

  /** Keyed digest for cache keys derived from secrets; never reversible, never logged. */
  mac(value: string): string {
    return createHmac('sha256', this.hmacKey).update(value).digest('base64url');
  }
}

/** One-shot `crypto.hash`: every request hashes its credential, and a Hash object per call cost several times more. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
