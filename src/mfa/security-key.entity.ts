import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A WebAuthn credential (security key or passkey) registered as a second factor. */
@Entity({ name: 'mfa_security_key' })
export class SecurityKey {
  @PrimaryGeneratedColumn()
  id: number;

  @Index('IDX_mfa_security_key_user')
  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** The credential id, base64url, as the browser reports it. */
  @Column({ name: 'credential_id', type: 'varchar', length: 255, unique: true })
  credentialId: string;

  /** The COSE public key, base64url. */
  @Column({ name: 'public_key', type: 'text' })
  publicKey: string;

  /** The authenticator's signature counter; a value that does not grow (when it counts) means a cloned key. */
  @Column({ type: 'integer', default: 0 })
  counter: number;

  /** Comma-separated transports the browser reported (usb, nfc, ble, internal, hybrid). */
  @Column({ type: 'varchar', length: 100, default: '' })
  transports: string;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;

  @Column({ name: 'last_used', type: 'datetime', precision: 3, nullable: true })
  lastUsed: Date | null;
}
