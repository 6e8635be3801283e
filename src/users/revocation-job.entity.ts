import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Clean-up owed after a revocation by cut-off (issue 21): the cut-off already refuses the credentials;
 * this row says which rows still have to be ended or deleted, in batches, by whichever node gets to it.
 * Deleted once no row is left. `kind` is `sessions` or `tokens`; `userId` null means every user.
 */
@Entity({ name: 'revocation_job' })
export class RevocationJob {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 16 })
  kind: 'sessions' | 'tokens';

  @Column({ name: 'user_id', type: 'integer', nullable: true })
  userId: number | null;

  @Column({ type: 'datetime', precision: 3 })
  cutoff: Date;

  @Column({ type: 'varchar', length: 32 })
  reason: string;

  /** The one session a password change keeps. */
  @Column({ name: 'kept_id', type: 'integer', nullable: true })
  keptId: number | null;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;
}
