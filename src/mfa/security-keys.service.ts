import { AuthenticationRecord } from '../common/authentication-record';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import { BadRequest, NotFound } from '../common/errors';
import { RequestTrace } from '../common/request-context';
import { MFA_PROVIDER } from '../pending-state/pending-state.entity';
import { PendingStateService } from '../pending-state/pending-state.service';
import type { User } from '../users/user.entity';
import { MfaRepository } from './mfa.repository';
import { ISSUER } from './mfa.service';
import type { SecurityKey } from './security-key.entity';

/** How long a registration or login ceremony may take (the browser's own prompt included). */
export const CEREMONY_SECONDS = 300;
const MAX_KEYS = 20;

/**
 * Security keys and passkeys as second factors (SPEC §16), through @simplewebauthn/server, which does
 * the protocol: options, attestation and assertion verification, counters. The relying party is
 * PUBLIC_URL's host and origin (WebAuthn refuses IP addresses, so a deployment names itself by host).
 * A registration's challenge waits in the pending-state store, so the ceremony may end on another node.
 */
@Injectable()
export class SecurityKeys {
  private readonly logger = new Logger('auth');
  private readonly rpId: string;
  private readonly origin: string;

  constructor(
    private readonly repository: MfaRepository,
    private readonly pending: PendingStateService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly record: AuthenticationRecord,
  ) {
    const url = new URL(config.publicUrl);
    this.rpId = url.hostname;
    this.origin = url.origin;
  }

  async registrationOptions(user: User) {
    const keys = await this.repository.securityKeys(user.id);
    if (keys.length >= MAX_KEYS) throw new BadRequest(`A user may register at most ${MAX_KEYS} security keys.`);
    const options = await generateRegistrationOptions({
      rpName: ISSUER,
      rpID: this.rpId,
      userName: user.username,
      userID: new TextEncoder().encode(`user-${user.id}`),
      attestationType: 'none',
      excludeCredentials: keys.map((k) => ({ id: k.credentialId, transports: transportsOf(k) })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      timeout: CEREMONY_SECONDS * 1000,
    });
    const key = registrationKey(user);
    await this.pending.remove(key);
    await this.pending.add(key, MFA_PROVIDER, { challenge: options.challenge }, CEREMONY_SECONDS);
    return options;
  }

  /**
   * Verifies the browser's answer to the latest options and stores the key; the challenge is spent either way.
   * `spendProof` (a factor change's proof, SPEC §16) runs once the answer is known good, before anything is stored.
   */
  async register(user: User, name: string, credential: unknown, trace: RequestTrace, spendProof?: () => Promise<void>): Promise<SecurityKey> {
    const pending = await this.pending.take<{ challenge: string }>(registrationKey(user));
    if (!pending) throw new BadRequest('Ask for registration options first (they last five minutes).');
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response: credential as RegistrationResponseJSON,
        expectedChallenge: pending.data.challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        requireUserVerification: false,
      });
    } catch (err) {
      throw new BadRequest(`The security key's answer was not accepted: ${(err as Error).message}`);
    }
    if (!verified.verified || !verified.registrationInfo) throw new BadRequest("The security key's answer was not accepted.");
    const { credential: made } = verified.registrationInfo;
    if (await this.repository.securityKeyByCredential(made.id)) throw new BadRequest('This security key is already registered.');
    await spendProof?.();
    const now = this.clock.now();
    const values = {
      userId: user.id,
      name,
      credentialId: made.id,
      publicKey: Buffer.from(made.publicKey).toString('base64url'),
      counter: made.counter,
      transports: (made.transports ?? []).join(','),
      created: now,
      lastUsed: null,
    };
    const id = await this.repository.transaction(async (r) => {
      const added = await r.addSecurityKey(values);
      // A secret started while the user had no factor was started without proof: it may not become a factor now.
      await r.deletePendingTotp(user.id);
      await r.syncFlag(user.id);
      return added;
    });
    user.mfaEnabled = true;
    this.logger.log({ event: 'mfa_factor_added', user_id: user.id, username: user.username, factor: 'security_key', key_id: id, ...trace });
    this.record.record({ event: 'factor_enrolled', user, method: 'api', trace, details: { factor: 'security_key' } });
    return { id, ...values };
  }

  /** Removes one of the user's keys (404 for any other id); `spendProof` runs once the key is known to be theirs. */
  async remove(user: User, id: number, trace: RequestTrace, spendProof?: () => Promise<void>): Promise<void> {
    if (!(await this.repository.securityKeys(user.id)).some((k) => k.id === id)) throw new NotFound();
    await spendProof?.();
    const removed = await this.repository.transaction(async (r) => {
      if (!(await r.deleteSecurityKey(user.id, id))) return false;
      const totp = await r.totp(user.id);
      if (!totp?.confirmedAt && !(await r.securityKeys(user.id)).length) await r.replaceRecoveryCodes(user.id, [], this.clock.now());
      user.mfaEnabled = await r.syncFlag(user.id);
      return true;
    });
    if (!removed) throw new NotFound();
    this.logger.log({ event: 'mfa_factor_removed', user_id: user.id, username: user.username, factor: 'security_key', key_id: id, ...trace });
    this.record.record({ event: 'factor_removed', user, method: 'api', trace, details: { factor: 'security_key' } });
  }

  /** Options for the second step of a login; null when the user has no key. The caller keeps the challenge. */
  async authenticationOptions(userId: number): Promise<PublicKeyCredentialRequestOptionsJSON | null> {
    const keys = await this.repository.securityKeys(userId);
    if (!keys.length) return null;
    return generateAuthenticationOptions({
      rpID: this.rpId,
      allowCredentials: keys.map((k) => ({ id: k.credentialId, transports: transportsOf(k) })),
      userVerification: 'preferred',
      timeout: CEREMONY_SECONDS * 1000,
    });
  }

  /** Whether `credential` is a valid assertion of one of the user's keys for `challenge`; its counter moves on. */
  async verifyAssertion(user: Pick<User, 'id' | 'username'>, credential: unknown, challenge: string, trace: RequestTrace): Promise<boolean> {
    const response = credential as AuthenticationResponseJSON;
    const key = typeof response?.id === 'string' ? await this.repository.securityKeyByCredential(response.id) : null;
    if (!key || key.userId !== user.id) return this.failed(user, trace, 'unknown key');
    let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      result = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        credential: { id: key.credentialId, publicKey: Buffer.from(key.publicKey, 'base64url'), counter: key.counter, transports: transportsOf(key) },
        requireUserVerification: false,
      });
    } catch (err) {
      return this.failed(user, trace, (err as Error).message);
    }
    if (!result.verified) return this.failed(user, trace, 'not verified');
    // The library refuses a counter that went backwards; this refuses a second use of the same one across nodes.
    if (!(await this.repository.recordKeyUse(key.id, key.counter, result.authenticationInfo.newCounter, this.clock.now()))) {
      return this.failed(user, trace, 'counter raced');
    }
    this.logger.log({ event: 'mfa_factor_used', user_id: user.id, username: user.username, factor: 'security_key', key_id: key.id, stage: 'login', ...trace });
    return true;
  }

  private failed(user: Pick<User, 'id' | 'username'>, trace: RequestTrace, reason: string): false {
    this.logger.warn({ event: 'mfa_failed', user_id: user.id, username: user.username, factor: 'security_key', reason, ...trace });
    return false;
  }
}

function registrationKey(user: Pick<User, 'id'>): string {
  return `webauthn-reg:${user.id}`;
}

function transportsOf(key: SecurityKey): AuthenticatorTransportFuture[] {
  return key.transports ? (key.transports.split(',') as AuthenticatorTransportFuture[]) : [];
}

type AuthenticatorTransportFuture = 'ble' | 'cable' | 'hybrid' | 'internal' | 'nfc' | 'smart-card' | 'usb';
