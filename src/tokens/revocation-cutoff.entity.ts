import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The system-wide token cut-off: one row (id 1). "Revoke every token" sets it, and every access or
 * refresh token created at or before it is refused from the next request on, on every node; the rows
 * are deleted afterwards in batches. Read with the token on every bearer request (a primary-key join).
 */
@Entity({ name: 'revocation_cutoff' })
export class RevocationCutoff {
  @PrimaryColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'tokens_revoked_before', type: 'datetime', precision: 3, nullable: true })
  tokensRevokedBefore: Date | null;
}

/** True when a token created at `created` falls under its user's or the system's cut-off. */
export function revokedByCutoff(created: Date, userCutoff: Date | null | undefined, systemCutoff: Date | null | undefined): boolean {
  const t = created.getTime();
  return (!!userCutoff && t <= userCutoff.getTime()) || (!!systemCutoff && t <= systemCutoff.getTime());
}
