import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * An external identity linked to a user (AWX's `social_auth_usersocialauth`): one row per
 * (provider, subject). Users are found by this link only, never by name or email (ASVS 6.8.1).
 */
@Entity({ name: 'social_auth' })
@Index(['provider', 'uid'], { unique: true })
export class SocialAuth {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  /** "oidc:<name>" or "saml:<name>". */
  @Column({ type: 'varchar', length: 150 })
  provider: string;

  /** OIDC `sub`, or the SAML permanent id (NameID by default). */
  @Column({ type: 'varchar', length: 255 })
  uid: string;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;
}
