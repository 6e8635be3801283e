import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The provider of a second step's pending login and ceremony (SSO's are `oidc:<name>` and `saml:<idp>`). */
export const MFA_PROVIDER = 'mfa';

/**
 * Short-lived state shared by every node: logins waiting for their second step and WebAuthn challenges, pending
 * SAML logouts and their LogoutRequest ids, and the replay records: single sign-on starts already completed, the
 * ids of assertions, logout tokens and LogoutRequests already used. A single sign-on start itself is sealed in
 * its browser and stored nowhere (issue 56).
 */
@Entity({ name: 'pending_state' })
export class PendingState {
  /**
   * "<kind>:..." e.g. "ssoused:<protocol>:<mac>", "samlreq:<idp>:<id>", "assertion:<idp>:<id>", "slo:<mac>",
   * "mfa:<mac>", "webauthn-reg:<user id>".
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

  /** Who started a pending login (its address; today only second steps have one), so one address cannot fill the table. */
  @Column({ name: 'client_ip', type: 'varchar', length: 45, default: '' })
  clientIp: string;
}
