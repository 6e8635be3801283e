import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Password attempts of one (username, client address) pair in the current window (SPEC §12). */
@Entity({ name: 'login_failure' })
@Index(['username', 'clientIp'], { unique: true })
@Index('IDX_login_failure_window', ['windowStart'])
export class LoginFailure {
  @PrimaryGeneratedColumn()
  id: number;

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
}
