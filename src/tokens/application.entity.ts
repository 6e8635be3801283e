import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { User } from '../users/user.entity';

export type ClientType = 'confidential' | 'public';
export type GrantType = 'password' | 'authorization-code' | 'implicit' | 'client-credentials' | 'device-code';

/** Every grant type an application may be registered with (SPEC §5, §15). */
export const GRANT_TYPES = ['password', 'authorization-code', 'implicit', 'client-credentials', 'device-code'] as const satisfies readonly GrantType[];

/** An OAuth 2 client (AWX `OAuth2Application`), owned by the user who registered it. */
@Entity({ name: 'oauth2_application' })
export class Application {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ name: 'client_id', type: 'varchar', length: 100, unique: true })
  clientId: string;

  /** SHA-256 of the client secret; null for public clients, which have none. */
  @Column({ name: 'client_secret_hash', type: 'varchar', length: 64, nullable: true })
  clientSecretHash: string | null;

  @Column({ name: 'client_type', type: 'varchar', length: 32 })
  clientType: ClientType;

  /** Space-separated absolute URIs, matched exactly. */
  @Column({ name: 'redirect_uris', type: 'text' })
  redirectUris: string;

  @Column({ name: 'authorization_grant_type', type: 'varchar', length: 32 })
  authorizationGrantType: GrantType;

  @Column({ name: 'skip_authorization', type: 'boolean', default: false })
  skipAuthorization: boolean;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;

  /** The service account a client-credentials application acts as (SPEC §15); null for every other grant. */
  @Column({ name: 'service_account_id', type: 'integer', nullable: true })
  serviceAccountId: number | null;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;

  @Column({ type: 'datetime', precision: 3 })
  modified: Date;
}
