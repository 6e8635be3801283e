import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Where a device authorization request stands (RFC 8628): `pending` until its user decides, then
 * `approved` or `denied`; an approved one becomes `redeemed` when the device gets its tokens (once).
 */
export type DeviceCodeState = 'pending' | 'approved' | 'denied' | 'redeemed';

/**
 * A device authorization request (RFC 8628 §3.2): the device code (the device's secret, SHA-256 like
 * every secret) and the user code (short, typed by a person; a keyed digest of its normalised form),
 * both unique so that each is found by equality.
 */
@Entity({ name: 'oauth2_device_code' })
export class DeviceCode {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'device_code_hash', type: 'varchar', length: 64, unique: true })
  deviceCodeHash: string;

  @Column({ name: 'user_code_hash', type: 'varchar', length: 64, unique: true })
  userCodeHash: string;

  @Column({ name: 'application_id', type: 'integer' })
  applicationId: number;

  @Column({ type: 'varchar', length: 32 })
  scope: string;

  @Column({ type: 'varchar', length: 16 })
  state: DeviceCodeState;

  /** The user who approved or denied it; null while pending. */
  @Column({ name: 'user_id', type: 'integer', nullable: true })
  userId: number | null;

  /** Seconds the device must wait between polls; grows by 5 with each `slow_down` (RFC 8628 §3.5). */
  @Column({ name: 'poll_interval', type: 'integer' })
  pollInterval: number;

  /** Polls counted so far: the compare-and-swap that makes `slow_down` hold across nodes. */
  @Column({ type: 'integer', default: 0 })
  polls: number;

  @Column({ name: 'last_polled', type: 'datetime', precision: 3, nullable: true })
  lastPolled: Date | null;

  @Column({ type: 'datetime', precision: 3 })
  expires: Date;

  @Column({ name: 'decided_at', type: 'datetime', precision: 3, nullable: true })
  decidedAt: Date | null;

  @Column({ type: 'datetime', precision: 3 })
  created: Date;
}
