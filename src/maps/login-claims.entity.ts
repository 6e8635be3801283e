import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { User } from '../users/user.entity';

/**
 * What the dry run replays (SPEC §21): for each user and source (`ldap:1`, `saml:okta`, `oidc:corp`,
 * `radius`), the claims of the user's latest login through it that reached an allow decision. `claims` is
 * JSON `{username, email, groups, attributes, truncated?}`, text only, at most 64 KiB, never a secret.
 */
@Entity({ name: 'auth_login_claims' })
@Index('IDX_auth_login_claims_source_login', ['source', 'loginAt'])
@Index('IDX_auth_login_claims_login', ['loginAt'])
export class LoginClaims {
  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @PrimaryColumn({ type: 'varchar', length: 200 })
  source: string;

  @Column({ name: 'login_at', type: 'datetime', precision: 3 })
  loginAt: Date;

  @Column({ type: 'boolean' })
  allowed: boolean;

  @Column({ type: 'text' })
  claims: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;
}
