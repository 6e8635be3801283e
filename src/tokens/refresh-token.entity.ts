import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A refresh token. Rotation stamps `revokedAt` instead of deleting, so that a second use of a
 * rotated token is recognised as theft and its whole family (every token of the grant) revoked.
 */
@Entity({ name: 'oauth2_refresh_token' })
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
