import type { RequestClient } from '../common/client-ip';
import { TokenActivity } from './token-activity';
import { Injectable, Logger } from '@nestjs/common';
import { AuthMetrics } from '../common/auth-metrics';
import { Clock } from '../common/clock';
import { NotFound } from '../common/errors';
import { RequestTrace } from '../common/request-context';
import { Transactions } from '../database/transactions';
import type { User } from '../users/user.entity';
import type { AccessToken } from './access-token.entity';
import { LastUsedBuffer } from './last-used.buffer';
import { TokensRepository } from './tokens.repository';
import { IssuedTokens, TokensService } from './tokens.service';

export interface RotatedToken {
  issued: IssuedTokens;
  /** Whether the grant's live refresh token now belongs to the new access token (shown masked). */
  hasRefresh: boolean;
}

/** The lifetime a token was given at issue, in whole seconds: what its rotation gives the new one by default. */
export function givenLifetime(token: Pick<AccessToken, 'created' | 'expires'>): number {
  return Math.max(1, Math.round((token.expires.getTime() - token.created.getTime()) / 1000));
}

/**
 * `POST /api/v2/tokens/N/rotate/` (SPEC §15): a new token in the old one's place (same user, description,
 * scope and application; a fresh lifetime under the policy) and the old one gone at once, in one
 * transaction. An application token's replacement joins its grant (its family) and takes over the grant's
 * live refresh token, so rotation replaces the one credential that may have leaked and leaves the
 * client's grant alone; revoking the grant is `DELETE`. docs/decisions.md says why.
 */
@Injectable()
export class TokenRotationService {
  private readonly logger = new Logger('tokens');

  constructor(
    private readonly repository: TokensRepository,
    private readonly tokens: TokensService,
    private readonly transactions: Transactions,
    private readonly lastUsed: LastUsedBuffer,
    private readonly metrics: AuthMetrics,
    private readonly clock: Clock,
    private readonly activity: TokenActivity,
  ) {}

  /**
   * Under the old token's row lock: issues the replacement, moves the grant's refresh token to it, deletes
   * the old token. Of two rotations of one token (on any node) the second waits for the lock, finds the
   * token gone and is 404. An application token's family lock comes first, so a rotation cannot slip a
   * live token into a family that a reuse of its refresh token is revoking (SPEC §5).
   */
  async rotate(token: AccessToken & { user: User }, expiresIn: number | undefined, trace: RequestTrace, client: RequestClient): Promise<RotatedToken> {
    const lifetime = expiresIn ?? givenLifetime(token);
    const { issued, repointed } = await this.transactions.run(async (manager) => {
      if (token.family && (await this.repository.lockFamily(manager, token.family)).revoked) throw new NotFound();
      if (!(await this.repository.lockAccessToken(token.id, manager))) throw new NotFound();
      const issued = await this.tokens.issue(
        {
          user: token.user,
          application: token.application ?? null,
          scope: token.scope,
          description: token.description,
          expiresIn: lifetime,
          family: token.family ?? undefined,
          withRefresh: false,
          trace,
          record: { method: 'api', previousToken: token.id, client },
        },
        manager,
      );
      // Before the old row goes: its foreign key would set the refresh token's access_token_id to NULL.
      const repointed = token.family ? await this.repository.repointRefreshTokens(token.id, issued.accessToken.id, this.clock.now(), manager) : 0;
      await this.repository.deleteAccessTokens({ id: token.id }, manager);
      return { issued, repointed };
    });
    // A rotation is the new token's `create` (issue records it) and the old one's `delete` (SPEC §5).
    await this.activity.token('delete', token, trace);
    this.lastUsed.forget([token.id]);
    this.metrics.tokensRevoked.inc();
    this.logger.log({
      event: 'token_rotated',
      token_id: token.id,
      new_token_id: issued.accessToken.id,
      user_id: token.userId,
      application_id: token.applicationId,
      refresh_tokens_moved: repointed,
      ...trace,
    });
    return { issued, hasRefresh: repointed > 0 };
  }
}
