import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { SettingsService } from '../settings/settings.service';
import { AccountPolicy, AccountRefusal } from '../users/account-policy';
import type { User } from '../users/user.entity';
import type { Application } from './application.entity';
import { RefreshToken } from './refresh-token.entity';
import { revokedByCutoff } from './revocation-cutoff.entity';
import { TokenRevocationService } from './token-revocation.service';
import { TokensRepository } from './tokens.repository';
import { secretHash } from './token-secrets';
import { RequestTrace } from '../common/request-context';

/**
 * Why a refresh token may not be redeemed: `revoked` (already rotated or revoked: a reuse), `expired` (past
 * its family's absolute expiry), `client_gone` and `user_gone` (the grant's application or user no longer
 * exists), `cut_off` (the user's or the system's cut-off covers it), or the account policy's refusal.
 */
export type RefreshTokenRefusal = 'revoked' | 'expired' | 'client_gone' | 'user_gone' | 'cut_off' | AccountRefusal;

/**
 * Refresh-token rotation (RFC 9700 §4.14.2): each use retires the token by compare-and-swap; a
 * token already retired is a replay, taken as theft, and revokes its whole family.
 */
@Injectable()
export class RefreshTokensService {
  private readonly logger = new Logger('oauth2');

  constructor(
    private readonly repository: TokensRepository,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly revocation: TokenRevocationService,
    private readonly policy: AccountPolicy,
  ) {}

  findBySecret(secret: string): Promise<RefreshToken | null> {
    return this.repository.findRefreshToken(secretHash(secret));
  }

  /**
   * The one validity rule for a refresh token (the refresh grant): not yet retired, within its family's
   * absolute expiry (AWX #6630: counted from the family's first issue, however often it was rotated), its
   * application and user still there, the account policy satisfied, and no cut-off covering it (not yet
   * stamped by the clean-up). A `revoked` answer is a reuse: the caller revokes the family (`reused`).
   */
  validate(
    token: Pick<RefreshToken, 'revokedAt' | 'familyStarted' | 'created'>,
    application: Pick<Application, 'id'> | null,
    user: Pick<User, 'isActive' | 'externalAccount' | 'tokensRevokedBefore'> | null,
    now = this.clock.now(),
    systemCutoff: Date | null = null,
  ): RefreshTokenRefusal | null {
    if (token.revokedAt) return 'revoked';
    if (this.expires(token).getTime() <= now.getTime()) return 'expired';
    if (!application) return 'client_gone';
    if (!user) return 'user_gone';
    const account = this.policy.refusal(user, 'refresh_token');
    if (account) return account;
    return revokedByCutoff(token.created, user.tokensRevokedBefore, systemCutoff) ? 'cut_off' : null;
  }

  /** When a refresh token's family stops being redeemable: REFRESH_TOKEN_EXPIRE_SECONDS after its first issue. */
  expires(token: Pick<RefreshToken, 'familyStarted'>): Date {
    return new Date(token.familyStarted.getTime() + this.settings.get('OAUTH2_PROVIDER').REFRESH_TOKEN_EXPIRE_SECONDS * 1000);
  }

  /**
   * `UPDATE ... SET revoked_at = now WHERE id = ? AND revoked_at IS NULL`: exactly one concurrent
   * use wins. The winner's old access token goes with it (DOT deletes it on refresh too); a loser
   * is a replay and revokes the family.
   */
  async rotate(token: RefreshToken, trace: RequestTrace): Promise<boolean> {
    if (!(await this.repository.retireRefreshToken(token.id, this.clock.now()))) {
      await this.reused(token, trace);
      return false;
    }
    if (token.accessTokenId) await this.revocation.deleteAccessToken(token.accessTokenId, 'refresh_token_rotated', trace);
    this.logger.log({ event: 'refresh_token_rotated', refresh_token_id: token.id, user_id: token.userId, application_id: token.applicationId, ...trace });
    return true;
  }

  async reused(token: RefreshToken, trace: RequestTrace): Promise<void> {
    this.logger.warn({ event: 'refresh_token_reused', refresh_token_id: token.id, user_id: token.userId, application_id: token.applicationId, ...trace });
    await this.revocation.revokeFamily(token.family, 'refresh_token_reused', trace, token.userId);
  }

  /**
   * Inside the transaction that issues into a family: takes the family's lock (SPEC §5), and says whether the
   * family was revoked, so a request that raced a reuse of its refresh token gets nothing.
   */
  async familyRevoked(manager: EntityManager, family: string): Promise<boolean> {
    return (await this.repository.lockFamily(manager, family)).revoked;
  }
}
