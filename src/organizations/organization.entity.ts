import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * AWX's organization (SPEC §21), as far as the maps and AWX's clients need it. The name is compared exactly
 * on every database (a binary collation on MySQL, migration 1765200000000), as AWX on PostgreSQL.
 */
@Entity({ name: 'main_organization' })
export class Organization {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 512, unique: true })
  name: string;

  @Column({ type: 'text' })
  description: string;

  /** Stored and shown, not enforced: this service has no inventories. */
  @Column({ name: 'max_hosts', type: 'integer', default: 0 })
  maxHosts: number;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;

  @Column({ type: 'datetime', precision: 3 })
  modified: Date;
}
