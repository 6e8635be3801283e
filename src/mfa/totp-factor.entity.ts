import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A user's authenticator-app secret (RFC 6238); pending until a first code confirms it. */
@Entity({ name: 'mfa_totp' })
export class TotpFactor {
  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  /** The base32 secret, encrypted with SECRET_KEY (SecretBox). */
  @Column({ type: 'text' })
  secret: string;

  @Column({ name: 'confirmed_at', type: 'datetime', precision: 3, nullable: true })
  confirmedAt: Date | null;

  /** The newest time step a code was accepted for: every code is used once, on any node (compare-and-swap). */
  @Column({ name: 'last_step', type: 'integer', nullable: true })
  lastStep: number | null;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;
}
