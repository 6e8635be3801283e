import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { User } from '../users/user.entity';
import { Application } from './application.entity';

/**
 * A bearer token: a personal access token (no application) or one issued to an application.
 * Only the SHA-256 of the secret is stored; revoking one deletes the row (AWX does the same).
 */
@Entity({ name: 'oauth2_access_token' })
export class AccessToken {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, unique: true })
  tokenHash: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;

  @Column({ name: 'application_id', type: 'integer', nullable: true })
  applicationId: number | null;

  @ManyToOne(() => Application, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'application_id' })
  application?: Application | null;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'varchar', length: 32 })
  scope: string;

  @Column({ type: 'datetime', precision: 3 })
  expires: Date;

  @Column({ name: 'last_used', type: 'datetime', precision: 3, nullable: true })
  lastUsed: Date | null;

  /** The client address of the latest use, written with `last_used` by the same batched flush. */
  @Column({ name: 'last_used_ip', type: 'varchar', length: 45, nullable: true })
  lastUsedIp: string | null;

  /**
   * Null until the expiry-notice loop claims the token for its `token_expiring` event; then the id of the
   * pass that claimed it, so each token is noticed once across every node (TokenExpiryNotices).
   */
  @Column({ name: 'expiry_notice', type: 'varchar', length: 32, nullable: true })
  expiryNotice: string | null;

  /** The grant this token came from (an authorization code and its refresh chain); null for PATs. */
  @Column({ type: 'varchar', length: 32, nullable: true })
  family: string | null;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;

  @Column({ type: 'datetime', precision: 3 })
  modified: Date;
}
