import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { User } from '../users/user.entity';

/**
 * One entry of AWX's activity stream (SPEC §23, `main_activitystream`). No foreign key anywhere: an entry outlives
 * the objects it names and its actor; `summary_fields` keeps their summaries as they were, `actor_*` the actor's.
 */
@Entity({ name: 'main_activitystream' })
@Index('IDX_main_activitystream_timestamp', ['timestamp', 'id'])
@Index('IDX_main_activitystream_actor', ['actorId', 'id'])
@Index('IDX_main_activitystream_setting', ['settingName', 'id'])
export class ActivityEntry {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'datetime', precision: 3 })
  timestamp: Date;

  @Column({ type: 'varchar', length: 16 })
  operation: string;

  @Column({ type: 'varchar', length: 32 })
  object1: string;

  @Column({ type: 'varchar', length: 32 })
  object2: string;

  @Column({ name: 'object_association', type: 'varchar', length: 16 })
  objectAssociation: string;

  @Column({ name: 'object_type', type: 'varchar', length: 32 })
  objectType: string;

  @Column({ name: 'action_node', type: 'varchar', length: 255 })
  actionNode: string;

  /** AWX's `changes`, as JSON text (secrets already hidden). */
  @Column({ type: 'text' })
  changes: string;

  /** The touched objects' summaries and the role, as JSON text (the actor's is built from the columns below). */
  @Column({ name: 'summary_fields', type: 'text' })
  summaryFields: string;

  @Column({ name: 'actor_id', type: 'integer', nullable: true })
  actorId: number | null;

  /** For `actor__username` filters and to tell whether the actor still exists. */
  @ManyToOne(() => User, { createForeignKeyConstraints: false, nullable: true })
  @JoinColumn({ name: 'actor_id' })
  actor?: User | null;

  @Column({ name: 'actor_username', type: 'varchar', length: 150, nullable: true })
  actorUsername: string | null;

  @Column({ name: 'actor_first_name', type: 'varchar', length: 150, nullable: true })
  actorFirstName: string | null;

  @Column({ name: 'actor_last_name', type: 'varchar', length: 150, nullable: true })
  actorLastName: string | null;

  @Column({ name: 'setting_category', type: 'varchar', length: 64, nullable: true })
  settingCategory: string | null;

  @Column({ name: 'setting_name', type: 'varchar', length: 255, nullable: true })
  settingName: string | null;
}
