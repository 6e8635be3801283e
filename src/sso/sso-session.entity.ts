import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * The identity provider's session behind a service session made by single sign-on (SPEC §17): who the
 * provider said it was and which of its sessions, so a logout can be passed on to the provider and a
 * provider's logout can end exactly these sessions. A side table of `user_session` with its own indexes
 * (a column there would widen the lookup every request makes); its row goes with the session's (the
 * foreign key cascades), so the session sweeper clears both.
 */
@Entity({ name: 'sso_session' })
@Index('IDX_sso_session_subject', ['provider', 'subject'])
@Index('IDX_sso_session_provider_session', ['provider', 'providerSession'])
export class SsoSession {
  /** The `user_session` row this belongs to. */
  @PrimaryColumn({ name: 'session_id', type: 'integer' })
  sessionId: number;

  /** "oidc:<name>" or "saml:<name>". */
  @Column({ type: 'varchar', length: 160 })
  provider: string;

  /** OIDC `sub`, or the SAML NameID (compared exactly, as social_auth's uid is); hashed when longer than the column. */
  @Column({ type: 'varchar', length: 255 })
  subject: string;

  /** OIDC `sid`, or the SAML SessionIndex; null when the provider named none. */
  @Column({ name: 'provider_session', type: 'varchar', length: 255, nullable: true })
  providerSession: string | null;

  /** Encrypted JSON: what a logout sends back to the provider (the ID token; the NameID with its format). */
  @Column({ type: 'text' })
  data: string;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;
}
