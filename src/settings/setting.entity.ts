import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One stored runtime setting (AWX `conf_setting`): its JSON value wins over the env/default. */
@Entity({ name: 'conf_setting' })
export class Setting {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255, unique: true })
  key: string;

  @Column({ type: 'text' })
  value: string;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;

  @Column({ type: 'datetime', precision: 3 })
  modified: Date;
}
