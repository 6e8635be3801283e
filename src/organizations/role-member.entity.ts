import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { User } from '../users/user.entity';
import { Role } from './role.entity';

/**
 * A user holding a role: one fact, whoever granted it (by hand, a setting or a map; SPEC §21). Deleted with
 * the role and with the user.
 */
@Entity({ name: 'main_rbac_role_members' })
@Index('IDX_main_rbac_role_members_user', ['userId'])
export class RoleMember {
  @PrimaryColumn({ name: 'role_id', type: 'integer' })
  roleId: number;

  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => Role, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'role_id' })
  role?: Role;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;
}
