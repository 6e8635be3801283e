import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { RequestTrace } from '../common/request-context';
import { SecretBox } from '../common/secret-box';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { isUniqueViolation } from '../database/errors';
import type { Application } from '../tokens/application.entity';
import { DeviceCode } from '../tokens/device-code.entity';
import { DEVICE_CODE_SWEEP_BATCH, DeviceCodesRepository } from '../tokens/device-codes.repository';
import { revokedByCutoff } from '../tokens/revocation-cutoff.entity';
import { newSecret, secretHash } from '../tokens/token-secrets';
import { AccountPolicy, AccountRefusal } from '../users/account-policy';
import { Throttled } from '../common/errors';
import { LoginThrottle, ThrottledCheck } from '../users/login-throttle.service';
import type { User } from '../users/user.entity';
import { formatUserCode, newUserCode, normaliseUserCode } from './user-codes';

/** RFC 8628 §3.2 as SPEC §15 fixes it: a device code lives ten minutes and is polled every five seconds. */
export const DEVICE_CODE_LIFETIME_SECONDS = 600;
export const DEVICE_POLL_INTERVAL_SECONDS = 5;
/** RFC 8628 §3.5: each `slow_down` adds five seconds to the interval, for every later poll. */
export const SLOW_DOWN_STEP_SECONDS = 5;
/**
 * Expired codes are kept this long before the sweep deletes them, so a device that polls late still
 * hears `expired_token` rather than `invalid_grant`.
 */
export const DEVICE_CODE_SWEEP_GRACE_MS = 60 * 60 * 1000;
/** One sweep deletes at most this many batches (a flood of requests is cleared over a few sweeps). */
const SWEEP_BATCHES = 20;

/** The throttle counters user-code guesses are counted in (LoginThrottle keys; no username has a space). */
const GUESSES_FROM_ADDRESS = 'device code';
const guessesOfUser = (userId: number) => `device code #${userId}`;
const ANY_ADDRESS = '*';

export interface IssuedDeviceCode {
  deviceCode: string;
  /** Shown as `XXXX-XXXX`. */
  userCode: string;
  expiresIn: number;
  interval: number;
}

/** What a poll of the token endpoint hears (RFC 8628 §3.5), or the approved code to redeem. */
export type DevicePoll =
  | { answer: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant' }
  | { answer: 'approved'; code: DeviceCode };

/**
 * Why an approved device code may not be redeemed: `expired`, `client_gone` or `user_gone`, `cut_off`
 * (its user's tokens, or every token, were revoked after the approval), or the account policy's refusal.
 */
export type DeviceCodeRefusal = 'expired' | 'client_gone' | 'user_gone' | 'cut_off' | AccountRefusal;

/** A user code typed on the page: the pending code it names, or why not. */
export type DeviceLookup = { code: DeviceCode } | { refused: 'unknown' | 'expired' | 'decided' };

/**
 * The device authorization grant (RFC 8628): codes issued to a client, a person's decision on the page
 * `/api/o/device/`, and the device's polls. Both codes are kept only as digests; each change of state is
 * a compare-and-swap in DeviceCodesRepository, so every node agrees on the one decision, the poll count
 * behind `slow_down` and the one redemption.
 */
@Injectable()
export class DeviceCodes {
  private readonly logger = new Logger('oauth2');
  private readonly box: SecretBox;

  constructor(
    private readonly repository: DeviceCodesRepository,
    private readonly clock: Clock,
    private readonly policy: AccountPolicy,
    private readonly throttle: LoginThrottle,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.box = new SecretBox(config.secretKey);
  }

  /**
   * A new device code and user code for `application`. A user code carries 34.6 bits: its digest is keyed
   * with SECRET_KEY, so a copy of the table does not give the codes away to a dictionary of 20^8 entries.
   */
  async issue(application: Application, scope: string, trace: RequestTrace): Promise<IssuedDeviceCode> {
    const now = this.clock.now();
    for (let attempt = 1; ; attempt++) {
      const deviceCode = newSecret('deviceCode');
      const userCode = newUserCode();
      const values = {
        deviceCodeHash: secretHash(deviceCode),
        userCodeHash: this.userCodeHash(userCode),
        applicationId: application.id,
        scope,
        state: 'pending' as const,
        userId: null,
        pollInterval: DEVICE_POLL_INTERVAL_SECONDS,
        polls: 0,
        lastPolled: null,
        expires: new Date(now.getTime() + DEVICE_CODE_LIFETIME_SECONDS * 1000),
        decidedAt: null,
        created: now,
      };
      try {
        const id = await this.repository.insert(values);
        this.logger.log({ event: 'device_code_issued', device_code_id: id, application_id: application.id, scope, ...trace });
        return { deviceCode, userCode: formatUserCode(userCode), expiresIn: DEVICE_CODE_LIFETIME_SECONDS, interval: DEVICE_POLL_INTERVAL_SECONDS };
      } catch (err) {
        // A user code already taken (one in tens of millions while thousands are live): draw again.
        if (!isUniqueViolation(err) || attempt >= 5) throw err;
      }
    }
  }

  /**
   * The pending code a person typed, each attempt counted by the login throttle from this address and
   * for this user before it is looked up: a wrong code is a failure of both counters, so guessing stops
   * at LOGIN_FAILURES_ALLOWED a window (429 with `Retry-After`, thrown as `Throttled`) however many
   * addresses or accounts the guesser has. A right code forgives nothing, or a guesser would interleave
   * codes of its own.
   */
  async lookUp(typed: unknown, userId: number, clientIp: string, trace: RequestTrace): Promise<DeviceLookup> {
    const guesses: ThrottledCheck = { pairs: [[GUESSES_FROM_ADDRESS, clientIp], [guessesOfUser(userId), ANY_ADDRESS]], rightForgives: false };
    let found: DeviceLookup;
    try {
      found = await this.throttle.attempt(guesses, () => this.find(typed), (lookup) => ('refused' in lookup ? 'wrong' : 'right'));
    } catch (err) {
      if (err instanceof Throttled) this.logger.warn({ event: 'device_code_throttled', user_id: userId, client_ip: clientIp, ...trace });
      throw err;
    }
    if ('refused' in found) this.logger.warn({ event: 'device_code_refused', reason: found.refused, user_id: userId, client_ip: clientIp, ...trace });
    return found;
  }

  private async find(typed: unknown): Promise<DeviceLookup> {
    const normalised = normaliseUserCode(typed);
    const code = normalised ? await this.repository.findByUserCodeHash(this.userCodeHash(normalised)) : null;
    if (!code) return { refused: 'unknown' };
    if (code.expires.getTime() <= this.clock.now().getTime()) return { refused: 'expired' };
    if (code.state !== 'pending') return { refused: 'decided' };
    return { code };
  }

  /** The person's answer on the consent page; false when the code was decided (or expired) meanwhile. */
  async decide(code: DeviceCode, user: Pick<User, 'id'>, approve: boolean, trace: RequestTrace): Promise<boolean> {
    const state = approve ? 'approved' : 'denied';
    const won = await this.repository.decide(code.id, state, user.id, this.clock.now());
    if (won) this.logger.log({ event: `device_code_${state}`, device_code_id: code.id, application_id: code.applicationId, user_id: user.id, ...trace });
    return won;
  }

  /**
   * One poll of the token endpoint by the client the code was issued to. In order: a code redeemed
   * before is `invalid_grant`; an expired one `expired_token`; a denied one `access_denied`; an approved
   * one is handed back for redemption; a pending one is `authorization_pending`, or `slow_down` when it
   * comes sooner than the interval after the last poll, which then grows by five seconds. The poll is
   * counted by compare-and-swap, so of two polls that race (on one node or two) the later is too soon.
   */
  async poll(deviceCode: string, application: Pick<Application, 'id'>): Promise<DevicePoll> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const code = await this.repository.findByDeviceCodeHash(secretHash(deviceCode));
      // A code of another client is unknown to this one (RFC 6749 §5.2: invalid_grant).
      if (!code || code.applicationId !== application.id || code.state === 'redeemed') return { answer: 'invalid_grant' };
      const now = this.clock.now();
      if (code.expires.getTime() <= now.getTime()) return { answer: 'expired_token' };
      if (code.state === 'denied') return { answer: 'access_denied' };
      if (code.state === 'approved') return { answer: 'approved', code };
      const tooSoon = !!code.lastPolled && now.getTime() - code.lastPolled.getTime() < code.pollInterval * 1000;
      const interval = tooSoon ? code.pollInterval + SLOW_DOWN_STEP_SECONDS : code.pollInterval;
      if (await this.repository.recordPoll(code.id, code.polls, now, interval)) return { answer: tooSoon ? 'slow_down' : 'authorization_pending' };
      // Another poll or the decision changed the row since it was read: read it again.
    }
    return { answer: 'slow_down' };
  }

  /**
   * The one validity rule for an approved device code about to be redeemed: not expired, its application
   * and approving user still there, no token cut-off since the approval (the user's "revoke all my
   * tokens", or every token's), and the account policy satisfied.
   */
  validate(
    code: Pick<DeviceCode, 'expires' | 'decidedAt'>,
    application: Pick<Application, 'id'> | null,
    user: Pick<User, 'isActive' | 'externalAccount' | 'tokensRevokedBefore'> | null,
    systemCutoff: Date | null,
    now = this.clock.now(),
  ): DeviceCodeRefusal | null {
    if (code.expires.getTime() <= now.getTime()) return 'expired';
    if (!application) return 'client_gone';
    if (!user) return 'user_gone';
    if (code.decidedAt && revokedByCutoff(code.decidedAt, user.tokensRevokedBefore, systemCutoff)) return 'cut_off';
    return this.policy.refusal(user, 'device_code');
  }

  /** Inside the transaction that issues the tokens: the one redemption that wins the compare-and-swap. */
  redeem(code: DeviceCode, manager: EntityManager): Promise<boolean> {
    return this.repository.redeem(manager, code.id, this.clock.now());
  }

  /** Deletes codes expired for longer than the grace, a batch at a time; how many. */
  async sweep(): Promise<number> {
    const before = new Date(this.clock.now().getTime() - DEVICE_CODE_SWEEP_GRACE_MS);
    let deleted = 0;
    for (let batch = 0; batch < SWEEP_BATCHES; batch++) {
      const n = await this.repository.deleteExpired(before);
      deleted += n;
      if (n < DEVICE_CODE_SWEEP_BATCH) break;
    }
    return deleted;
  }

  private userCodeHash(normalised: string): string {
    return this.box.mac(`device-user-code:${normalised}`);
  }
}
