import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A refresh token. Rotation stamps `revokedAt` instead of deleting, so that a second use of a
 * rotated token is recognised as theft and its whole family (every token of the grant) revoked.
 */
@Entity({ name: 'oauth2_refresh_token' })
// What `cleartokens` plans by (migration 1764700000000): absolute expiry, and each family's live tokens.
@Index('IDX_oauth2_refresh_token_family_started', ['familyStarted'])
@Index('IDX_oauth2_refresh_token_family_revoked', ['family', 'revokedAt'])
export class RefreshToken {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, unique: true })
  tokenHash: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'application_id', type: 'integer' })
  applicationId: number;

  /** The access token issued with it; null once that token is gone. */
  @Column({ name: 'access_token_id', type: 'integer', nullable: true })
  accessTokenId: number | null;

  @Column({ type: 'varchar', length: 32 })
  family: string;

  /** When the family's first token was issued: the absolute expiry counts from here. */
  @Column({ name: 'family_started', type: 'datetime', precision: 3 })
  familyStarted: Date;

  @Column({ type: 'varchar', length: 32 })
  scope: string;

  @Column({ name: 'revoked_at', type: 'datetime', precision: 3, nullable: true })
  revokedAt: Date | null;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;

  @Column({ type: 'datetime', precision: 3 })
  modified: Date;
}
