import { randomBytes } from 'node:crypto';

/**
 * RFC 8628 §6.1's advice, as SPEC §15 fixes it: twenty consonants (no vowels, so no words; no
 * look-alikes such as 0/O or 1/I) in eight letters, 20^8 ≈ 2^34.6 codes, shown `XXXX-XXXX`.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

/** Eight letters drawn without bias: bytes ≥ 240 (= 12 × 20) are dropped rather than folded. */
export function newUserCode(): string {
  let out = '';
  while (out.length < USER_CODE_LENGTH) {
    for (const byte of randomBytes(16)) {
      if (byte >= 240) continue;
      out += USER_CODE_ALPHABET[byte % 20];
      if (out.length === USER_CODE_LENGTH) break;
    }
  }
  return out;
}

/** How a code is shown and put in `verification_uri_complete`. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * A typed code as it is stored: case, dashes and white space ignored (RFC 8628 §6.1). Null when what is
 * left cannot be a code at all, which the page answers like a wrong code.
 */
export function normaliseUserCode(typed: unknown): string | null {
  if (typeof typed !== 'string' || typed.length > 64) return null;
  const code = typed.toUpperCase().replace(/[\s-]+/g, '');
  if (code.length !== USER_CODE_LENGTH) return null;
  for (const c of code) if (!USER_CODE_ALPHABET.includes(c)) return null;
  return code;
}
