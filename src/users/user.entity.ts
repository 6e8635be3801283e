import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Account } from '../common/principal';

/** A person who can log in. `password` holds a KDF hash, or an unusable marker starting with "!". */
@Entity({ name: 'auth_user' })
export class User implements Account {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 150, unique: true })
  username: string;

  /** `username` as names compare (users/usernames.ts `foldUsername`), kept in step by the users service. */
  @Column({ name: 'username_folded', type: 'varchar', length: 600, nullable: true })
  usernameFolded: string | null;

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

  /** null for local users; "social" for users created by single sign-on, "ldap" by a directory login, "service" for a service account. */
  @Column({ name: 'external_account', type: 'varchar', length: 20, nullable: true })
  externalAccount: string | null;

  /**
   * Whether the user has a confirmed second factor (SPEC §16), kept in step by the mfa module: a column
   * of the row every password path already reads, so basic auth's repeat path asks nothing more.
   */
  @Column({ name: 'mfa_enabled', type: 'boolean', default: false })
  mfaEnabled: boolean;

  /** The directory entry of an LDAP user (SPEC §14, AWX's `ldap_dn`), kept in step at every login; null for others. */
  @Column({ name: 'ldap_dn', type: 'varchar', length: 1024, nullable: true })
  ldapDn: string | null;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;

  @Column({ type: 'datetime', precision: 3 })
  modified: Date;

  @Column({ name: 'last_login', type: 'datetime', precision: 3, nullable: true })
  lastLogin: Date | null;

  /**
   * SPEC §22 (AC-2(3)): from this instant every login path refuses the user as expired, and their sessions and
   * tokens are refused (not ended: clearing it lets them work again). Read with the row every request loads.
   */
  @Column({ name: 'account_expires', type: 'datetime', precision: 3, nullable: true })
  accountExpires: Date | null;

  /**
   * SPEC §22's ACCOUNT_INACTIVE_DAYS counts from the latest of `created`, the latest login (a browser login or the
   * password grant; basic and bearer are no use) and the latest re-activation by a superuser.
   */
  @Column({ name: 'last_login_event_at', type: 'datetime', precision: 3, nullable: true })
  lastLoginEventAt: Date | null;

  /** SPEC §22's `previous_login`: the login before the latest (each login moves `last_login_event_at` here). */
  @Column({ name: 'previous_login_at', type: 'datetime', precision: 3, nullable: true })
  previousLoginAt: Date | null;

  @Column({ name: 'reactivated_at', type: 'datetime', precision: 3, nullable: true })
  reactivatedAt: Date | null;

  /**
   * Revocation cut-offs (one small write ends any number of credentials, issue 21): sessions created
   * at or before `sessionsEndedBefore` are over with `sessionsEndReason`, except `sessionsKeptId` (the
   * session a password change keeps); tokens created at or before `tokensRevokedBefore` are revoked.
   * Read with the user on every authenticated request; the rows themselves are cleaned up afterwards.
   */
  @Column({ name: 'sessions_ended_before', type: 'datetime', precision: 3, nullable: true })
  sessionsEndedBefore: Date | null;

  @Column({ name: 'sessions_end_reason', type: 'varchar', length: 32, nullable: true })
  sessionsEndReason: string | null;

  @Column({ name: 'sessions_kept_id', type: 'integer', nullable: true })
  sessionsKeptId: number | null;

  @Column({ name: 'tokens_revoked_before', type: 'datetime', precision: 3, nullable: true })
  tokensRevokedBefore: Date | null;
}
