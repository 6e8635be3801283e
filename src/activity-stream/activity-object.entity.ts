import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { ActivityEntry } from './activity-entry.entity';

/** An object an entry touches (AWX's many-to-many fields of the stream), for the per-object lists, filters and read rules. */
@Entity({ name: 'main_activitystream_object' })
@Index('IDX_main_activitystream_object_kind', ['kind', 'objectId', 'entryId'])
@Index('IDX_main_activitystream_object_entry', ['entryId'])
export class ActivityObject {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'entry_id', type: 'integer' })
  entryId: number;

  @ManyToOne(() => ActivityEntry, { createForeignKeyConstraints: false })
  @JoinColumn({ name: 'entry_id' })
  entry?: ActivityEntry;

  @Column({ type: 'varchar', length: 32 })
  kind: string;

  @Column({ name: 'object_id', type: 'integer' })
  objectId: number;
}
