import { Column, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { User } from '../users/user.entity';

/**
 * The columns every user-created object shares (each entity extends this; TypeORM copies the
 * columns into each table): AWX's id, name, description and audit stamps. The creating user
 * (`created_by_id`) is the owner (ownership.ts). Deleting a user sets these to NULL rather than
 * deleting what they made: automation data outlives accounts, and superusers still manage it.
 */
export abstract class OwnedResource {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 512 })
  name: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ name: 'created_by_id', type: 'integer', nullable: true })
  createdById: number | null;

  @ManyToOne(() => User, { nullable: true, onDelete: 'SET NULL' })
  @JoinColumn({ name: 'created_by_id' })
  createdBy?: User | null;

  @Column({ name: 'modified_by_id', type: 'integer', nullable: true })
  modifiedById: number | null;

  @ManyToOne(() => User, { nullable: true, onDelete: 'SET NULL' })
  @JoinColumn({ name: 'modified_by_id' })
  modifiedBy?: User | null;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;

  @Column({ type: 'datetime', precision: 3 })
  modified: Date;
}
