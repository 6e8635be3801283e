import { AuthenticationRecord } from '../common/authentication-record';
import { Inject, Injectable, Logger } from '@nestjs/common';
import QRCode from 'qrcode';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import { BadRequest } from '../common/errors';
import { RequestTrace } from '../common/request-context';
import { SecretBox } from '../common/secret-box';
import { SettingsService } from '../settings/settings.service';
import type { AuthenticationSettings } from '../settings/authentication-settings';
import type { User } from '../users/user.entity';
import { CodeThrottle } from './code-throttle';
import { MfaRepository } from './mfa.repository';
import { newRecoveryCodes, newTotpSecret, normalisedRecoveryCode, otpauthUrl, totpStep } from './one-time-codes';

export const ISSUER = 'Automation Service';

/** A secret waiting for confirmation: as text, as the otpauth:// URL, and as a QR code (PNG data URL) made here. */
export interface TotpEnrolment {
  secret: string;
  otpauth_url: string;
  qr_code: string;
}

async function enrolment(user: Pick<User, 'username'>, secret: string): Promise<TotpEnrolment> {
  const url = otpauthUrl(ISSUER, user.username, secret);
  return { secret, otpauth_url: url, qr_code: await QRCode.toDataURL(url, { margin: 1, width: 200 }) };
}

/** The answer to a wrong code wherever the API checks one (SPEC §16). */
export const INVALID_CODE = 'The code is not valid.';

/** Which factor a code proved. */
export type CodeKind = 'totp' | 'recovery_code';

/**
 * Authenticator apps and recovery codes (SPEC §16): enrolment, confirmation, removal, and the check of
 * a code at login. Every code is used once across nodes (a compare-and-swap on the last time step, or on
 * the recovery code's `used_at`); `auth_user.mfa_enabled` follows the factors in the same transaction.
 * Security keys are in SecurityKeys; both log through here (`mfa_*` events, never a code or secret).
 */
@Injectable()
export class MfaService {
  private readonly logger = new Logger('auth');
  private readonly box: SecretBox;

  constructor(
    private readonly repository: MfaRepository,
    private readonly codes: CodeThrottle,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly record: AuthenticationRecord,
  ) {
    this.box = new SecretBox(config.secretKey);
  }

  async status(user: User) {
    const [totp, keys, left] = await Promise.all([this.repository.totp(user.id), this.repository.securityKeys(user.id), this.repository.recoveryCodesLeft(user.id)]);
    return {
      totp: !!totp?.confirmedAt,
      security_keys: keys.map((k) => ({ id: k.id, name: k.name, created: k.created.toISOString(), last_used: k.lastUsed?.toISOString() ?? null })),
      recovery_codes_left: left,
    };
  }

  /** Whether the user has a confirmed factor (an authenticator app or a security key) right now. */
  async hasFactor(userId: number): Promise<boolean> {
    const [totp, keys] = await Promise.all([this.repository.totp(userId), this.repository.securityKeys(userId)]);
    return !!totp?.confirmedAt || keys.length > 0;
  }

  /** A new secret, pending until a code confirms it; refused while a confirmed one exists. */
  async startTotp(user: User, trace: RequestTrace, spendProof?: () => Promise<void>): Promise<TotpEnrolment> {
    const existing = await this.repository.totp(user.id);
    if (existing?.confirmedAt) throw new BadRequest('An authenticator app is already set up; remove it first.');
    await spendProof?.();
    const secret = newTotpSecret();
    await this.repository.saveTotp({ userId: user.id, secret: this.box.encrypt(secret), confirmedAt: null, lastStep: null, created: this.clock.now() });
    this.logger.log({ event: 'mfa_totp_started', user_id: user.id, username: user.username, ...trace });
    return enrolment(user, secret);
  }

  /** The pending secret, when one exists and is not yet confirmed (the forced set-up page shows it again). */
  async pendingTotp(user: User): Promise<TotpEnrolment | null> {
    const existing = await this.repository.totp(user.id);
    if (!existing || existing.confirmedAt) return null;
    return enrolment(user, this.box.decrypt(existing.secret));
  }

  /** The first code confirms the secret; the answer is ten new recovery codes, shown this once. */
  async confirmTotp(user: User, code: string, trace: RequestTrace): Promise<string[]> {
    const pending = await this.repository.totp(user.id);
    if (!pending || pending.confirmedAt) throw new BadRequest('There is no authenticator app waiting for confirmation; start again.');
    const step = await totpStep(this.box.decrypt(pending.secret), code, this.clock.now().getTime(), null);
    if (step === null) {
      this.logger.warn({ event: 'mfa_failed', user_id: user.id, username: user.username, factor: 'totp', stage: 'confirm', ...trace });
      throw new BadRequest('The code is not valid; enter the current code of your authenticator app.');
    }
    const codes = newRecoveryCodes();
    const confirmed = await this.repository.transaction(async (r) => {
      if (!(await r.confirmTotp(user.id, this.clock.now(), step))) return false;
      await r.replaceRecoveryCodes(user.id, codes.map((c) => this.codeHash(c)), this.clock.now());
      await r.syncFlag(user.id);
      return true;
    });
    if (!confirmed) throw new BadRequest('There is no authenticator app waiting for confirmation; start again.');
    user.mfaEnabled = true;
    this.logger.log({ event: 'mfa_factor_added', user_id: user.id, username: user.username, factor: 'totp', ...trace });
    this.record.record({ event: 'factor_enrolled', user, method: 'api', trace, details: { factor: 'totp' } });
    return codes;
  }

  /**
   * A current code of the authenticator app, or an unused recovery code: which factor it proved, or null.
   * Each is spent here, once, on whichever node gets it first.
   */
  async spendCode(user: Pick<User, 'id' | 'username'>, typed: string, trace: RequestTrace, stage = 'login'): Promise<CodeKind | null> {
    const code = typeof typed === 'string' ? typed.trim() : '';
    const totp = await this.repository.totp(user.id);
    if (totp?.confirmedAt && /^\d{6}$/.test(code.replace(/\s+/g, ''))) {
      const step = await totpStep(this.box.decrypt(totp.secret), code, this.clock.now().getTime(), totp.lastStep);
      if (step !== null && (await this.repository.claimTotpStep(user.id, step))) return this.used(user, 'totp', stage, trace);
    }
    const recovery = normalisedRecoveryCode(code);
    if (recovery && (await this.repository.spendRecoveryCode(user.id, this.codeHash(recovery), this.clock.now()))) {
      return this.used(user, 'recovery_code', stage, trace);
    }
    this.logger.warn({ event: 'mfa_failed', user_id: user.id, username: user.username, stage, ...trace });
    return null;
  }

  /**
   * spendCode under the user's code throttle (CodeThrottle): 400 for a wrong code, 429 past the allowance
   * (then nothing is checked or spent). The API's checks go through here; the second step counts its own.
   */
  async proveCode(user: Pick<User, 'id' | 'username'>, code: string, trace: RequestTrace, stage: string): Promise<CodeKind> {
    const kind = await this.codes.check(user, stage, trace, () => this.spendCode(user, code, trace, stage));
    if (!kind) throw new BadRequest(INVALID_CODE);
    return kind;
  }

  /** Removing the authenticator app needs one of its codes or a recovery code (a stolen session alone is not enough). */
  async removeTotp(user: User, code: string, trace: RequestTrace): Promise<void> {
    const totp = await this.repository.totp(user.id);
    if (!totp?.confirmedAt) throw new BadRequest('No authenticator app is set up.');
    await this.proveCode(user, code, trace, 'remove_totp');
    await this.repository.transaction(async (r) => {
      await r.deleteTotp(user.id);
      // Recovery codes stand in for a factor; with none left they would be a factor of their own.
      if (!(await r.securityKeys(user.id)).length) await r.replaceRecoveryCodes(user.id, [], this.clock.now());
      user.mfaEnabled = await r.syncFlag(user.id);
    });
    this.logger.log({ event: 'mfa_factor_removed', user_id: user.id, username: user.username, factor: 'totp', ...trace });
    this.record.record({ event: 'factor_removed', user, method: 'api', trace, details: { factor: 'totp' } });
  }

  /** Ten new recovery codes in place of the old ones, for a user who proves a factor now. */
  async regenerateRecoveryCodes(user: User, code: string, trace: RequestTrace): Promise<string[]> {
    if (!user.mfaEnabled) throw new BadRequest('Set up an authenticator app or a security key first.');
    await this.proveCode(user, code, trace, 'recovery_codes');
    const codes = newRecoveryCodes();
    await this.repository.replaceRecoveryCodes(user.id, codes.map((c) => this.codeHash(c)), this.clock.now());
    this.logger.log({ event: 'mfa_recovery_codes_regenerated', user_id: user.id, username: user.username, ...trace });
    return codes;
  }

  /** Ten recovery codes for a user whose first factor is a security key (they have none yet). */
  async ensureRecoveryCodes(user: User): Promise<string[] | null> {
    if ((await this.repository.recoveryCodesLeft(user.id)) > 0) return null;
    const codes = newRecoveryCodes();
    await this.repository.replaceRecoveryCodes(user.id, codes.map((c) => this.codeHash(c)), this.clock.now());
    return codes;
  }

  /** Every factor of a user, removed by a superuser or the `reset_mfa` command. */
  async resetAll(user: User, by: string, trace: RequestTrace): Promise<void> {
    const had = await this.status(user);
    await this.repository.transaction(async (r) => {
      await r.deleteAll(user.id);
      await r.syncFlag(user.id);
    });
    this.logger.log({ event: 'mfa_reset', user_id: user.id, username: user.username, by, ...trace });
    // SPEC §23: one `factor_removed` per factor it removed, by an administrator.
    const method = by === 'manage' ? 'command' : 'api';
    const removed = [...(had.totp ? ['totp'] : []), ...had.security_keys.map(() => 'security_key')];
    for (const factor of removed) this.record.record({ event: 'factor_removed', user, method, trace, details: { factor, by: 'admin' } });
  }

  /** Keyed with SECRET_KEY: a recovery code carries about 49 bits, too few for a plain hash to hide it (ASVS 6.5.2). */
  private codeHash(code: string): string {
    return this.box.mac(normalisedRecoveryCode(code) ?? code);
  }

  private used(user: Pick<User, 'id' | 'username'>, factor: CodeKind, stage: string, trace: RequestTrace): CodeKind {
    this.logger.log({ event: 'mfa_factor_used', user_id: user.id, username: user.username, factor, stage, ...trace });
    return factor;
  }
}
