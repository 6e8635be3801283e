import { randomInt } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';

/** RFC 6238 as SPEC §16 fixes it: SHA-1, 6 digits, 30-second steps (otplib's defaults), one step of drift either way. */
const DRIFT_SECONDS = 30;
export const RECOVERY_CODE_COUNT = 10;
/** Lowercase letters and digits without the look-alikes (0/o, 1/l/i), in two groups of five: `abcde-fghjk`. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

export function newTotpSecret(): string {
  return generateSecret();
}

export function otpauthUrl(issuer: string, account: string, secret: string): string {
  return generateURI({ issuer, label: account, secret });
}

/** The time step `code` belongs to when it is a current code of `secret` (later than `afterStep`), else null. */
export async function totpStep(secret: string, code: string, nowMs: number, afterStep: number | null): Promise<number | null> {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const result = await verify({
    secret,
    token,
    epoch: Math.floor(nowMs / 1000),
    epochTolerance: DRIFT_SECONDS,
    ...(afterStep !== null ? { afterTimeStep: afterStep } : {}),
  });
  // TOTP results carry the matched step (otplib types the union of HOTP's and TOTP's without it).
  return result.valid ? (result as typeof result & { timeStep: number }).timeStep : null;
}

export function newRecoveryCodes(): string[] {
  const one = () => Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const code = one();
    return `${code.slice(0, 5)}-${code.slice(5)}`;
  });
}

/** A typed recovery code as stored: case, spaces and the dash do not matter; null when it cannot be one. */
export function normalisedRecoveryCode(typed: string): string | null {
  const code = typed.toLowerCase().replace(/[\s-]+/g, '');
  return code.length === 10 && [...code].every((c) => RECOVERY_ALPHABET.includes(c)) ? code : null;
}
