import type { Claims } from './map-contract';

/** A record's cap (SPEC §21): groups first, then attributes, the largest left out first. */
export const CLAIMS_RECORD_MAX_BYTES = 64 * 1024;

/**
 * Attributes that hold secrets, never stored whatever a source sends or a rule names (SPEC §21): LDAP's
 * password and key attributes, RADIUS's User-Password, State and Message-Authenticator, and the tokens and codes of SSO.
 * Compared without case, as LDAP names attributes.
 */
const SECRET_ATTRIBUTES = new Set(
  [
    'userPassword', 'unicodePwd', 'sambaNTPassword', 'sambaLMPassword', 'sambaPasswordHistory', 'userPKCS12', 'krbPrincipalKey', 'krb5Key',
    'authPassword', 'ipaNTHash', 'msDS-KeyCredentialLink', 'msDS-ManagedPassword',
    'User-Password', 'CHAP-Password', 'State', 'Message-Authenticator',
    'id_token', 'access_token', 'refresh_token', 'code', 'nonce', 'at_hash', 'c_hash', 's_hash', 'SessionIndex',
  ].map((name) => name.toLowerCase()),
);

/** Compared without options too (`userPassword;x-old` is `userPassword`, RFC 4512 §2.5), as SPEC §21 says. */
export function isSecretAttribute(name: string): boolean {
  const semicolon = name.indexOf(';');
  return SECRET_ATTRIBUTES.has((semicolon < 0 ? name : name.slice(0, semicolon)).toLowerCase());
}

/** A claim's values as text: strings kept, numbers and booleans as their JSON text, anything else dropped. */
export function textValues(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  for (const item of list) {
    if (typeof item === 'string') out.push(item);
    else if (typeof item === 'number' || typeof item === 'boolean') out.push(JSON.stringify(item));
  }
  return out;
}

/** Attributes as the maps read them: secrets and values that are not text left out, empty ones too. */
export function textAttributes(source: Record<string, unknown>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(source)) {
    if (isSecretAttribute(name)) continue;
    const values = textValues(value);
    if (values.length) out[name] = values;
  }
  return out;
}

/** What is stored of a login: the claims with their secrets gone, at most CLAIMS_RECORD_MAX_BYTES of JSON. */
export interface ClaimsRecord extends Claims {
  truncated?: true;
}

export function claimsRecord(claims: Claims): ClaimsRecord {
  const record: ClaimsRecord = {
    username: claims.username,
    email: claims.email,
    groups: [...claims.groups],
    attributes: textAttributes(claims.attributes),
  };
  if (bytes(record) <= CLAIMS_RECORD_MAX_BYTES) return record;
  record.truncated = true;
  // Attributes go first, the largest first, so that what is left is as much of the record as fits.
  const largestFirst = Object.entries(record.attributes).sort((a, b) => bytes(b[1]) - bytes(a[1]));
  for (const [name] of largestFirst) {
    delete record.attributes[name];
    if (bytes(record) <= CLAIMS_RECORD_MAX_BYTES) return record;
  }
  // Groups alone too large: keep the ones that fit, in order.
  const groups = record.groups;
  record.groups = [];
  for (const group of groups) {
    record.groups.push(group);
    if (bytes(record) > CLAIMS_RECORD_MAX_BYTES) {
      record.groups.pop();
      break;
    }
  }
  return record;
}

function bytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}
