import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { SettingsService } from '../settings/settings.service';
import type { Application } from '../tokens/application.entity';
import { AuthorizationCode } from '../tokens/authorization-code.entity';
import { AuthorizationCodesRepository } from '../tokens/authorization-codes.repository';
import { TokenRevocationService } from '../tokens/token-revocation.service';
import { newFamily, secretHash } from '../tokens/token-secrets';
import { AccountPolicy, AccountRefusal } from '../users/account-policy';
import type { User } from '../users/user.entity';
import { RequestTrace } from '../common/request-context';

export interface NewCode {
  secret: string;
  applicationId: number;
  userId: number;
  redirectUri: string | null;
  scope: string;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
}

/**
 * Why an authorization code may not be redeemed: `used` (presented before: a replay), `expired`,
 * `client_gone` and `user_gone` (its application or user no longer exists), or the account policy's refusal.
 */
export type AuthorizationCodeRefusal = 'used' | 'expired' | 'client_gone' | 'user_gone' | AccountRefusal;

/**
 * Authorization codes (RFC 6749 §4.1.2, §10.5): stored as a hash, redeemed once by compare-and-swap,
 * and a second presentation revokes every token the first one produced.
 */
@Injectable()
export class AuthorizationCodes {
  private readonly logger = new Logger('oauth2');

  constructor(
    private readonly repository: AuthorizationCodesRepository,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly revocation: TokenRevocationService,
    private readonly policy: AccountPolicy,
  ) {}

  async save(code: NewCode, trace: RequestTrace): Promise<AuthorizationCode> {
    const now = this.clock.now();
    const lifetime = this.settings.get('OAUTH2_PROVIDER').AUTHORIZATION_CODE_EXPIRE_SECONDS;
    const values = {
      codeHash: secretHash(code.secret),
      applicationId: code.applicationId,
      userId: code.userId,
      redirectUri: code.redirectUri,
      scope: code.scope,
      codeChallenge: code.codeChallenge,
      codeChallengeMethod: code.codeChallengeMethod,
      expires: new Date(now.getTime() + lifetime * 1000),
      usedAt: null,
      family: null,
      replayedAt: null,
      created: now,
    };
    const saved = Object.assign(new AuthorizationCode(), values, { id: await this.repository.insert(values) });
    this.logger.log({ event: 'authorization_code_issued', code_id: saved.id, application_id: code.applicationId, user_id: code.userId, pkce: !!code.codeChallenge, ...trace });
    return saved;
  }

  findBySecret(secret: string): Promise<AuthorizationCode | null> {
    return this.repository.findByHash(secretHash(secret));
  }

  /**
   * The one validity rule for an authorization code (the authorization-code grant): never presented before,
   * not expired, its application and user still there, and the account policy satisfied. A `used` answer is
   * a replay: the caller marks it and revokes what the first redemption issued (`replayed`).
   */
  validate(
    code: Pick<AuthorizationCode, 'usedAt' | 'expires'>,
    application: Pick<Application, 'id'> | null,
    user: Pick<User, 'isActive' | 'externalAccount'> | null,
    now = this.clock.now(),
  ): AuthorizationCodeRefusal | null {
    if (code.usedAt) return 'used';
    if (code.expires.getTime() <= now.getTime()) return 'expired';
    if (!application) return 'client_gone';
    if (!user) return 'user_gone';
    return this.policy.refusal(user, 'authorization_code');
  }

  /**
   * The one redemption that wins the compare-and-swap gets the family its tokens will carry. Logged, so that
   * every presentation of a code leaves one event, `authorization_code_redeemed` or `…_replayed`.
   */
  async redeem(code: AuthorizationCode, trace: RequestTrace): Promise<string | null> {
    const family = newFamily();
    if (!(await this.repository.redeem(code.id, this.clock.now(), family))) return null;
    this.logger.log({ event: 'authorization_code_redeemed', code_id: code.id, application_id: code.applicationId, user_id: code.userId, ...trace });
    return family;
  }

  /**
   * A second presentation (RFC 6749 §4.1.2): mark the code, then revoke what it issued. Marking
   * waits for a redemption still saving its tokens (it holds the row), so nothing slips through.
   */
  async replayed(code: AuthorizationCode, trace: RequestTrace): Promise<void> {
    const family = await this.repository.markReplayed(code.id, this.clock.now());
    this.logger.warn({ event: 'authorization_code_replayed', code_id: code.id, application_id: code.applicationId, user_id: code.userId, ...trace });
    if (family) await this.revocation.revokeFamily(family, 'authorization_code_replayed', trace, code.userId);
  }

  /** Inside the transaction that saves the tokens: holds the code row and refuses a replayed code. */
  lockUnreplayed(codeId: number, manager: EntityManager): Promise<boolean> {
    return this.repository.lockUnreplayed(manager, codeId);
  }
}
