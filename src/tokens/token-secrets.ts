import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../common/secret-box';

/**
 * Every secret we hand out starts with a prefix naming its kind, so secret scanners and log filters
 * can recognise it (GitHub's `ghp_` idea); `_` is outside base62, so a prefix never blends in.
 */
export const SECRET_PREFIX = {
  personalToken: 'svcp_',
  applicationToken: 'svca_',
  refreshToken: 'svcr_',
  clientSecret: 'svcs_',
  authorizationCode: 'svcc_',
  deviceCode: 'svcd_',
} as const;

export type SecretKind = keyof typeof SECRET_PREFIX;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters carry 256 random bits (ASVS 11.5.1 asks for at least 128). */
const SECRET_LENGTH = 43;

/** Unbiased base62: bytes ≥ 248 (= 4 × 62) are dropped rather than folded onto low characters. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length + 8)) {
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function newSecret(kind: SecretKind): string {
  return SECRET_PREFIX[kind] + randomBase62(SECRET_LENGTH);
}

/** Only this digest is stored; for 256-bit random secrets a fast hash is enough (ASVS 6.5.2). */
export function secretHash(secret: string): string {
  return sha256Hex(secret);
}

/** A short random id shared by all tokens of one grant (authorization code or refresh chain). */
export function newFamily(): string {
  return randomBytes(16).toString('hex');
}

/** What the API shows instead of a secret after the response that created it (AWX's CENSOR_VALUE). */
export const MASKED = '************';
