import type { Claims } from '../maps/map-contract';

/** A user as an identity provider described them, after the protocol checks passed. */
export interface ExternalIdentity {
  /** "oidc:<name>" or "saml:<name>". */
  provider: string;
  /** Non-reassignable subject: OIDC `sub`, SAML permanent id. */
  uid: string;
  username?: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  /** What the provider sent, as the maps read it (SPEC §21): never a token, a code or an assertion; absent, the names alone. */
  claims?: Claims;
}

/** A claim or attribute as one string: the first of a list, nothing for objects or blanks. */
export function stringClaim(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first === 'number' || typeof first === 'boolean') return String(first);
  return typeof first === 'string' && first.trim() ? first.trim() : undefined;
}
