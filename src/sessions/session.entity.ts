import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { User } from '../users/user.entity';

/**
 * A browser session. The cookie holds an opaque random value; only its SHA-256 is stored.
 * Ended sessions keep their row (and reason) so a later request can be told why.
 */
@Entity({ name: 'user_session' })
/** A user's live sessions in list order; the live test and the sort read from the index alone. */
@Index('IDX_user_session_user_live', ['userId', 'endedAt', 'created', 'id', 'expires', 'absoluteExpires'])
@Index('IDX_user_session_due_idle', ['endedAt', 'expires'])
@Index('IDX_user_session_due_absolute', ['endedAt', 'absoluteExpires'])
@Index(['ipAddress', 'endedAt'])
/** Every user's live sessions in list order (`/api/v2/sessions/`, SPEC §22). */
@Index('IDX_user_session_all_live', ['endedAt', 'created', 'id', 'expires'])
@Index('IDX_user_session_end_batch', ['endBatch'])
export class Session {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'key_hash', type: 'varchar', length: 64, unique: true })
  keyHash: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  /** Loaded with the session in one query on every session-authenticated request. */
  @ManyToOne(() => User, { onDelete: 'CASCADE', createForeignKeyConstraints: false })
  @JoinColumn({ name: 'user_id' })
  user?: User;

  @Column({ name: 'ip_address', type: 'varchar', length: 45 })
  ipAddress: string;

  @Column({ name: 'user_agent', type: 'varchar', length: 512, default: '' })
  userAgent: string;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;

  @Column({ name: 'last_seen', type: 'datetime', precision: 3 })
  lastSeen: Date;

  /** Idle expiry: slides to now + SESSION_COOKIE_AGE on each request, capped by absoluteExpires. */
  @Column({ type: 'datetime', precision: 3 })
  expires: Date;

  @Column({ name: 'absolute_expires', type: 'datetime', precision: 3, nullable: true })
  absoluteExpires: Date | null;

  @Column({ name: 'ended_at', type: 'datetime', precision: 3, nullable: true })
  endedAt: Date | null;

  @Column({ name: 'ended_reason', type: 'varchar', length: 32, nullable: true })
  endedReason: string | null;

  /** When the login that made it completed its second step (SPEC §16): a fresh one may change factors without a code. */
  /** The source of the login that made it, in §23's words (`local`, `ldap:default`, `oidc:corp`…). */
  @Column({ type: 'varchar', length: 64, default: '' })
  source: string;

  /** How that login was made: `form`, `second_step` or `sso` (SPEC §22). */
  @Column({ type: 'varchar', length: 16, default: '' })
  method: string;

  @Column({ name: 'second_step_at', type: 'datetime', precision: 3, nullable: true })
  secondStepAt: Date | null;

  /** The `login_succeeded` event written with the session (SPEC §23), which §22's previous-login notice reads. */
  @Column({ name: 'login_event_id', type: 'integer', nullable: true })
  loginEventId: number | null;

  /** The batch statement that ended it, if one did (SPEC §23: each batch reports the sessions it ended). */
  @Column({ name: 'end_batch', type: 'varchar', length: 16, nullable: true })
  endBatch: string | null;
}
