import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Account } from '../common/principal';

/** A person who can log in. `password` holds a KDF hash, or an unusable marker starting with "!". */
@Entity({ name: 'auth_user' })
export class User implements Account {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 150, unique: true })
  username: string;

  @Column({ name: 'first_name', type: 'varchar', length: 150, default: '' })
  firstName: string;

  @Column({ name: 'last_name', type: 'varchar', length: 150, default: '' })
  lastName: string;

  @Column({ type: 'varchar', length: 254, default: '' })
  email: string;

  @Column({ type: 'varchar', length: 255 })
  password: string;

  @Column({ name: 'is_superuser', type: 'boolean', default: false })
  isSuperuser: boolean;

  @Column({ name: 'is_system_auditor', type: 'boolean', default: false })
  isSystemAuditor: boolean;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  /** null for local users; "social" for users created by single sign-on. */
  @Column({ name: 'external_account', type: 'varchar', length: 20, nullable: true })
  externalAccount: string | null;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;

  @Column({ type: 'datetime', precision: 3 })
  modified: Date;

  @Column({ name: 'last_login', type: 'datetime', precision: 3, nullable: true })
  lastLogin: Date | null;
}
