import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { User } from '../users/user.entity';

/**
 * One authentication event (SPEC §23). `user_*` keep the user's summary as it was when the event was written, so
 * the event reads the same after the user is deleted; nothing here is ever a password, code, token or hash.
 */
@Entity({ name: 'authentication_event' })
@Index('IDX_authentication_event_user', ['userId', 'id'])
@Index('IDX_authentication_event_timestamp', ['timestamp', 'id'])
export class AuthenticationEvent {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'datetime', precision: 3 })
  timestamp: Date;

  @Column({ type: 'varchar', length: 32 })
  event: string;

  @Column({ name: 'user_id', type: 'integer', nullable: true })
  userId: number | null;

  /** For `user__username` filters only; no foreign key, so the event outlives the user. */
  @ManyToOne(() => User, { createForeignKeyConstraints: false, nullable: true })
  @JoinColumn({ name: 'user_id' })
  user?: User | null;

  @Column({ name: 'user_username', type: 'varchar', length: 150, nullable: true })
  userUsername: string | null;

  @Column({ name: 'user_first_name', type: 'varchar', length: 150, nullable: true })
  userFirstName: string | null;

  @Column({ name: 'user_last_name', type: 'varchar', length: 150, nullable: true })
  userLastName: string | null;

  /** As the password path read it (SPEC §14), at most 150 characters; "" when none was given. */
  @Column({ type: 'varchar', length: 150 })
  username: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  source: string | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  method: string | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  reason: string | null;

  @Column({ name: 'session_id', type: 'integer', nullable: true })
  sessionId: number | null;

  @Column({ name: 'token_id', type: 'integer', nullable: true })
  tokenId: number | null;

  @Column({ name: 'ip_address', type: 'varchar', length: 45, nullable: true })
  ipAddress: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 512 })
  userAgent: string;

  @Column({ name: 'request_id', type: 'varchar', length: 64, nullable: true })
  requestId: string | null;

  @Column({ name: 'action_node', type: 'varchar', length: 255 })
  actionNode: string;

  /** A JSON object (SPEC §23: `{}` unless the event says otherwise). */
  @Column({ type: 'text' })
  details: string;
}
