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
  /** Set only when the SAML flag mapping is configured: then the flag follows the attributes at every login. */
  isSuperuser?: boolean;
  isSystemAuditor?: boolean;
}

/** A claim or attribute as one string: the first of a list, nothing for objects or blanks. */
export function stringClaim(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first === 'number' || typeof first === 'boolean') return String(first);
  return typeof first === 'string' && first.trim() ? first.trim() : undefined;
}
