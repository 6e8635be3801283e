import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One of a local user's last passwords, as its hash (SPEC §22); the newest row is the current password. */
@Entity({ name: 'password_history' })
@Index('IDX_password_history_user', ['userId', 'id'])
export class PasswordHistoryEntry {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ type: 'varchar', length: 255 })
  password: string;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;
}
