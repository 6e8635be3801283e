import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** An authorization code (RFC 6749 §4.1.2): short-lived, single use, bound to client and redirect URI. */
@Entity({ name: 'oauth2_authorization_code' })
export class AuthorizationCode {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'code_hash', type: 'varchar', length: 64, unique: true })
  codeHash: string;

  @Column({ name: 'application_id', type: 'integer' })
  applicationId: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  /** The redirect URI the authorization request named; null when it named none (RFC 6749 §4.1.3). */
  @Column({ name: 'redirect_uri', type: 'text', nullable: true })
  redirectUri: string | null;

  @Column({ type: 'varchar', length: 32 })
  scope: string;

  @Column({ name: 'code_challenge', type: 'varchar', length: 128, nullable: true })
  codeChallenge: string | null;

  @Column({ name: 'code_challenge_method', type: 'varchar', length: 10, nullable: true })
  codeChallengeMethod: string | null;

  @Column({ type: 'datetime', precision: 3 })
  expires: Date;

  /** Set by the one redemption that wins (compare-and-swap); the tokens it issues carry `family`. */
  @Column({ name: 'used_at', type: 'datetime', precision: 3, nullable: true })
  usedAt: Date | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  family: string | null;

  /** Set when the code is presented again: the tokens it issued are revoked. */
  @Column({ name: 'replayed_at', type: 'datetime', precision: 3, nullable: true })
  replayedAt: Date | null;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;
}
