import { FieldErrors } from '../common/errors';
import type { SecretBox } from '../common/secret-box';
import { ENCRYPTED_PLACEHOLDER } from './setting-definition';

/** Secrets may be strings or nested inside objects (per-provider client secrets): mask any string leaf named *secret* or *key*. */
export function maskSecrets(value: unknown): unknown {
  if (typeof value === 'string') return value ? ENCRYPTED_PLACEHOLDER : '';
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, /secret|private_key/i.test(k) || typeof v === 'object' ? maskSecrets(v) : v]),
    );
  }
  return value;
}

/** Writing "$encrypted$" back keeps the stored secret (AWX behaviour), at any depth. */
export function unmaskSecrets(key: string, value: unknown, current: unknown): unknown {
  if (value === ENCRYPTED_PLACEHOLDER) return current;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const cur = (current && typeof current === 'object' ? current : {}) as Record<string, unknown>;
    const given = value as Record<string, unknown>;
    // SPEC §7: a stored secret is never sent to a new address. Keeping "$encrypted$" while changing the
    // issuer would hand the old provider's client secret to whoever the new issuer is.
    const kept = Object.keys(given).find((k) => given[k] === ENCRYPTED_PLACEHOLDER);
    if (kept && 'issuer' in given && given.issuer !== cur.issuer) {
      throw FieldErrors.of(key, `${kept}: The issuer changed, so the stored ${kept} is not kept: send the secret for the new issuer.`);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unmaskSecrets(key, v, cur[k])]));
  }
  return value;
}

export function encryptSecrets(value: unknown, box: SecretBox): unknown {
  if (typeof value === 'string') return value ? box.encrypt(value) : value;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, /secret|private_key/i.test(k) || typeof v === 'object' ? encryptSecrets(v, box) : v]),
    );
  }
  return value;
}

export function decryptSecrets(value: unknown, box: SecretBox): unknown {
  if (typeof value === 'string') return box.decrypt(value);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decryptSecrets(v, box)]));
  }
  return value;
}
