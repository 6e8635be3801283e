import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The provider of a second step's pending login and ceremony (SSO's are `oidc:<name>` and `saml:<idp>`). */
export const MFA_PROVIDER = 'mfa';

/**
 * Short-lived state shared by every node: pending OIDC logins (keyed by a hash of the browser's binding
 * cookie), SAML RelayState handles, outstanding AuthnRequest ids (node-saml's InResponseTo cache), the ids
 * of assertions already used (the replay cache), and logins waiting for their second step.
 */
@Entity({ name: 'pending_state' })
export class PendingState {
  /**
   * "<kind>:..." e.g. "oidc:<sha256>", "relay:<sha256>", "samlreq:<idp>:<id>", "assertion:<idp>:<id>",
   * "mfa:<sha256>", "webauthn-reg:<user id>".
   */
  @PrimaryColumn({ name: 'state_key', type: 'varchar', length: 255 })
  key: string;

  /** Whose state it is: an SSO provider key ("oidc:<name>", "saml:<idp>"), or "mfa". */
  @Column({ type: 'varchar', length: 160, default: '' })
  provider: string;

  /** JSON, encrypted with SECRET_KEY when it holds a secret (PKCE verifier, nonce). */
  @Column({ type: 'text', nullable: true })
  data: string | null;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;

  @Index()
  @Column({ type: 'datetime', precision: 3 })
  expires: Date;

  /** Who started a pending login (its address), so one address cannot fill the table. */
  @Column({ name: 'client_ip', type: 'varchar', length: 45, default: '' })
  clientIp: string;
}
