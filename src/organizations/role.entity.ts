import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Organization } from './organization.entity';
import { Team } from './team.entity';

/** The roles an organization has (SPEC §21); a team has the first and the last. */
export const ORGANIZATION_ROLES = ['admin_role', 'auditor_role', 'member_role'] as const;
export const TEAM_ROLES = ['admin_role', 'member_role'] as const;
export type RoleField = (typeof ORGANIZATION_ROLES)[number];

/**
 * One role of one organization or team, made and deleted with it: ids unique among all roles, as AWX's
 * `main_rbac_roles`. Exactly one of `organizationId` and `teamId` is set.
 */
@Entity({ name: 'main_rbac_roles' })
export class Role {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'role_field', type: 'varchar', length: 32 })
  roleField: RoleField;

  @Column({ name: 'organization_id', type: 'integer', nullable: true })
  organizationId: number | null;

  @ManyToOne(() => Organization, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'organization_id' })
  organization?: Organization | null;

  @Column({ name: 'team_id', type: 'integer', nullable: true })
  teamId: number | null;

  @ManyToOne(() => Team, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'team_id' })
  team?: Team | null;
}
