import { Injectable } from '@nestjs/common';
import { limitedStatement, PlannedStatement } from '../database/batch-statements';
import { PreparedStatements } from '../database/prepared-statements';
import { CLEANUP_BATCH } from '../users/revocation-jobs';

/** `cleartokens` and `revoke_oauth2_tokens` work in batches of this many rows (commands, not requests). */
export const CLEARTOKENS_BATCH = 1000;

/** The tokens a cut-off covers: one user's, or (userId null) everyone's, created at or before `cutoff`. */
export interface CutOffScope {
  userId: number | null;
  cutoff: Date;
}

/**
 * The statements that delete or stamp access and refresh tokens in batches, each in its database's own
 * form: the clean-up after a cut-off (revocation jobs, `revoke_oauth2_tokens`) and `cleartokens`. Beside
 * TokensRepository (same tables) so neither outgrows a file; TokenRevocationService holds the rules, and
 * TokensRepository's `periodicStatements` lists these for the plan test.
 */
@Injectable()
export class TokenCleanUpRepository {
  constructor(private readonly prepared: PreparedStatements) {}

  /** Ids of at most `limit` access tokens a cut-off covers. */
  async accessTokensCutOff(scope: CutOffScope, limit: number): Promise<number[]> {
    const s = this.accessTokensCutOffStatement(scope, limit);
    return (await this.prepared.rows(s.sql, s.params)).map((r) => Number(r.id));
  }

  async deleteAccessTokensByIds(ids: number[]): Promise<void> {
    if (!ids.length) return;
    const s = this.deleteAccessTokensStatement(ids);
    await this.prepared.run(s.sql, s.params);
  }

  /** One batch of a cut-off's clean-up: access tokens deleted, refresh tokens not yet revoked stamped; at most CLEANUP_BATCH of each. */
  async cleanUpCutOff(scope: CutOffScope, now: Date): Promise<{ accessTokenIds: number[]; refreshTokens: number }> {
    const accessTokenIds = await this.accessTokensCutOff(scope, CLEANUP_BATCH);
    await this.deleteAccessTokensByIds(accessTokenIds);
    const s = this.stampRefreshTokensStatement(scope, now);
    return { accessTokenIds, refreshTokens: await this.prepared.run(s.sql, s.params) };
  }

  /** Deletes at most `limit` access tokens that expired at or before `now`; how many. */
  deleteExpiredAccessTokens(now: Date, limit: number): Promise<number> {
    return this.runStatement(this.expiredAccessTokensStatement(now, limit));
  }

  /** Deletes at most `limit` refresh tokens whose family started at or before `before` (past the absolute expiry). */
  deleteRefreshTokensStartedBefore(before: Date, limit: number): Promise<number> {
    return this.runStatement(this.familyStartedStatement(before, limit));
  }

  /**
   * One step of the walk over families in family order, after `after`: the revoked tokens of each of the
   * next `limit` families with no live token are deleted. `next` is where the walk goes on, null at the end.
   */
  async deleteDeadFamilies(after: string, limit: number): Promise<{ deleted: number; next: string | null }> {
    const s = this.familiesStatement(after, limit);
    const families = (await this.prepared.rows(s.sql, s.params)).map((r) => ({ family: String(r.family), live: Number(r.live) }));
    const dead = families.filter((f) => f.live === 0).map((f) => f.family);
    const deleted = dead.length ? await this.runStatement(this.deadFamiliesStatement(dead)) : 0;
    return { deleted, next: families.length >= limit ? families[families.length - 1].family : null };
  }

  /** The clean-up and `cleartokens` statements with representative parameters, built as the code runs them (for the plan test). */
  periodicStatements(sample: { userId: number; now: Date }): PlannedStatement[] {
    const { userId, now } = sample;
    const user: CutOffScope = { userId, cutoff: now };
    const everyone: CutOffScope = { userId: null, cutoff: now };
    return [
      this.accessTokensCutOffStatement(user, CLEANUP_BATCH),
      this.accessTokensCutOffStatement(everyone, CLEANUP_BATCH),
      this.deleteAccessTokensStatement([1, 2, 3]),
      { ...this.accessTokensCutOffStatement(user, CLEARTOKENS_BATCH), name: 'revoke_oauth2_tokens: access tokens (one user)' },
      { ...this.accessTokensCutOffStatement(everyone, CLEARTOKENS_BATCH), name: 'revoke_oauth2_tokens: access tokens (everyone)' },
      this.stampRefreshTokensStatement(user, now),
      this.stampRefreshTokensStatement(everyone, now),
      this.expiredAccessTokensStatement(now, CLEARTOKENS_BATCH),
      this.familyStartedStatement(now, CLEARTOKENS_BATCH),
      this.familiesStatement('', CLEARTOKENS_BATCH),
      this.deadFamiliesStatement(['a', 'b']),
    ];
  }

  private async runStatement(s: PlannedStatement): Promise<number> {
    return this.prepared.run(s.sql, s.params);
  }

  private accessTokensCutOffStatement(scope: CutOffScope, limit: number): PlannedStatement {
    return {
      name: `revocation clean-up: access tokens a cut-off covers (${this.whose(scope)})`,
      sql: `SELECT id FROM oauth2_access_token WHERE ${this.byUser(scope)}created <= ? LIMIT ${limit}`,
      params: this.scoped(scope, [this.prepared.date(scope.cutoff)]),
    };
  }

  private deleteAccessTokensStatement(ids: number[]): PlannedStatement {
    return { name: 'revocation clean-up: access tokens deleted by id', sql: `DELETE FROM oauth2_access_token WHERE id IN (${ids.map(() => '?').join(', ')})`, params: ids };
  }

  private stampRefreshTokensStatement(scope: CutOffScope, now: Date): PlannedStatement {
    const stamp = this.prepared.date(now);
    const head = 'UPDATE oauth2_refresh_token SET revoked_at = ?, modified = ?';
    const where = `${this.byUser(scope)}revoked_at IS NULL AND created <= ?`;
    const params = [stamp, stamp, ...this.scoped(scope, [this.prepared.date(scope.cutoff)])];
    return this.limited(`revocation clean-up: refresh tokens a cut-off covers, stamped (${this.whose(scope)})`, head, 'oauth2_refresh_token', where, CLEANUP_BATCH, params);
  }

  private expiredAccessTokensStatement(now: Date, limit: number): PlannedStatement {
    return this.limited('cleartokens: expired access tokens', 'DELETE FROM oauth2_access_token', 'oauth2_access_token', 'expires <= ?', limit, [this.prepared.date(now)]);
  }

  private familyStartedStatement(before: Date, limit: number): PlannedStatement {
    return this.limited('cleartokens: refresh tokens past the absolute expiry', 'DELETE FROM oauth2_refresh_token', 'oauth2_refresh_token', 'family_started <= ?', limit, [this.prepared.date(before)]);
  }

  /** The next families in family order with their number of live tokens, read from the (family, revoked_at) index alone. */
  private familiesStatement(after: string, limit: number): PlannedStatement {
    const sql = `SELECT family, COUNT(*) - COUNT(revoked_at) AS live FROM oauth2_refresh_token WHERE family > ? GROUP BY family ORDER BY family LIMIT ${limit}`;
    return { name: 'cleartokens: families and their live tokens', sql, params: [after] };
  }

  private deadFamiliesStatement(families: string[]): PlannedStatement {
    const sql = `DELETE FROM oauth2_refresh_token WHERE family IN (${families.map(() => '?').join(', ')}) AND revoked_at IS NOT NULL`;
    return { name: 'cleartokens: revoked tokens of dead families', sql, params: families };
  }

  private limited(name: string, head: string, table: string, where: string, limit: number, params: unknown[]): PlannedStatement {
    return { name, sql: limitedStatement(this.prepared.dialect, head, table, where, limit), params };
  }

  private whose(scope: CutOffScope): string {
    return scope.userId === null ? 'everyone' : 'one user';
  }

  private byUser(scope: CutOffScope): string {
    return scope.userId === null ? '' : 'user_id = ? AND ';
  }

  private scoped(scope: CutOffScope, rest: unknown[]): unknown[] {
    return scope.userId === null ? rest : [scope.userId, ...rest];
  }
}
