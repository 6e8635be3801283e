import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One of a user's ten recovery codes, stored as a hash; used once. */
@Entity({ name: 'mfa_recovery_code' })
@Index('IDX_mfa_recovery_code_user_hash', ['userId', 'codeHash'])
export class RecoveryCode {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash: string;

  @Column({ name: 'used_at', type: 'datetime', precision: 3, nullable: true })
  usedAt: Date | null;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;
}
