import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull } from 'typeorm';
import { Clock } from '../common/clock';
import { SettingsService } from '../settings/settings.service';
import type { User } from '../users/user.entity';
import { RefreshToken } from './refresh-token.entity';
import { revokedByCutoff } from './revocation-cutoff.entity';
import { TokenRevocationService } from './token-revocation.service';
import { TokensService } from './tokens.service';
import { secretHash } from './token-secrets';
import { RequestTrace } from '../common/request-context';

/**
 * Refresh-token rotation (RFC 9700 §4.14.2): each use retires the token by compare-and-swap; a
 * token already retired is a replay, taken as theft, and revokes its whole family.
 */
@Injectable()
export class RefreshTokensService {
  private readonly logger = new Logger('oauth2');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly revocation: TokenRevocationService,
    private readonly tokens: TokensService,
  ) {}

  findBySecret(secret: string): Promise<RefreshToken | null> {
    return this.dataSource.getRepository(RefreshToken).findOneBy({ tokenHash: secretHash(secret) });
  }

  /** Revoked by the user's or the system's cut-off (not yet stamped by the clean-up). */
  async cutOff(token: RefreshToken, user: Pick<User, 'tokensRevokedBefore'>): Promise<boolean> {
    return revokedByCutoff(token.created, user.tokensRevokedBefore, await this.tokens.systemCutoff());
  }

  /** Absolute expiry from the family's first issue, however often it was rotated (AWX #6630). */
  familyExpired(token: RefreshToken): boolean {
    const lifetime = this.settings.get('OAUTH2_PROVIDER').REFRESH_TOKEN_EXPIRE_SECONDS;
    return token.familyStarted.getTime() + lifetime * 1000 <= this.clock.now().getTime();
  }

  /**
   * `UPDATE ... SET revoked_at = now WHERE id = ? AND revoked_at IS NULL`: exactly one concurrent
   * use wins. The winner's old access token goes with it (DOT deletes it on refresh too); a loser
   * is a replay and revokes the family.
   */
  async rotate(token: RefreshToken, trace: RequestTrace): Promise<boolean> {
    const now = this.clock.now();
    const result = await this.dataSource.getRepository(RefreshToken).update({ id: token.id, revokedAt: IsNull() }, { revokedAt: now, modified: now });
    if (result.affected !== 1) {
      await this.reused(token, trace);
      return false;
    }
    if (token.accessTokenId) await this.revocation.deleteAccessTokens({ id: token.accessTokenId }, 'refresh_token_rotated', trace);
    this.logger.log({ event: 'refresh_token_rotated', refresh_token_id: token.id, user_id: token.userId, application_id: token.applicationId, ...trace });
    return true;
  }

  async reused(token: RefreshToken, trace: RequestTrace): Promise<void> {
    this.logger.warn({ event: 'refresh_token_reused', refresh_token_id: token.id, user_id: token.userId, application_id: token.applicationId, ...trace });
    await this.revocation.revokeFamily(token.family, 'refresh_token_reused', trace);
  }
}
