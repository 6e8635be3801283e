import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Password attempts of one (username, client address) pair in the current window (SPEC §12), and its lock (§22). */
@Entity({ name: 'login_failure' })
@Index('UQ_login_failure_pair_folded', ['usernameFolded', 'clientIp'], { unique: true })
@Index('IDX_login_failure_window', ['windowStart'])
export class LoginFailure {
  @PrimaryGeneratedColumn()
  id: number;

  /** The spelling of the window's first attempt (SPEC §22: what `login_locks` shows). */
  @Column({ type: 'varchar', length: 150 })
  username: string;

  @Column({ name: 'client_ip', type: 'varchar', length: 45 })
  clientIp: string;

  /** Failed attempts in the current window. */
  @Column({ type: 'integer' })
  failures: number;

  /** Attempts counted and being verified right now (SPEC §12: counted before the password is checked). */
  @Column({ type: 'integer', default: 0 })
  pending: number;

  @Column({ name: 'window_start', type: 'datetime', precision: 3 })
  windowStart: Date;

  /** The name as §20 compares names (usernames.ts `foldUsername`): the pair's key, and how it finds its user. */
  @Column({ name: 'username_folded', type: 'varchar', length: 600, nullable: true })
  usernameFolded: string | null;

  /** A §12 password pair (SPEC §22: the only counters that lock); §15's and §16's code counters are not. */
  @Column({ type: 'boolean', default: false })
  lockable: boolean;

  @Column({ name: 'first_failure', type: 'datetime', precision: 3, nullable: true })
  firstFailure: Date | null;

  @Column({ name: 'last_failure', type: 'datetime', precision: 3, nullable: true })
  lastFailure: Date | null;

  /** When the pair's lock ends, set by its locking failure (SPEC §22: the duration in force then). */
  @Column({ name: 'locked_until', type: 'datetime', precision: 3, nullable: true })
  lockedUntil: Date | null;

  /** Locked with LOGIN_LOCKOUT_DURATION -1: until an administrator unlocks it. */
  @Column({ name: 'locked_indefinitely', type: 'boolean', default: false })
  lockedIndefinitely: boolean;
}
