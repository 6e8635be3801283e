import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Organization } from './organization.entity';

/** AWX's team: a name unique within its organization, which it never leaves (SPEC §21). */
@Entity({ name: 'main_team' })
@Index('UQ_main_team_organization_name', ['organizationId', 'name'], { unique: true })
export class Team {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 512 })
  name: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ name: 'organization_id', type: 'integer' })
  organizationId: number;

  @ManyToOne(() => Organization, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'organization_id' })
  organization?: Organization;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;

  @Column({ type: 'datetime', precision: 3 })
  modified: Date;
}
