import { Injectable } from '@nestjs/common';
import { limitedStatement, PlannedStatement } from '../database/batch-statements';
import { dateFromDatabase, PreparedStatements } from '../database/prepared-statements';

/** The index the expiry-notice claim reads (migration 1764800000000): tokens not yet noticed, by expiry. */
const NOTICE_INDEX = 'IDX_oauth2_access_token_expiry_notice';

/** Tokens claimed per statement, and statements per pass (a minute apart): 5,000 notices a minute at most. */
export const NOTICE_BATCH = 500;
export const NOTICE_BATCHES_PER_PASS = 10;
/** `list_expiring_tokens` reads this many tokens a statement. */
export const EXPIRING_PAGE = 1000;

const SELECT = 'SELECT t.id, t.user_id, u.username, t.application_id, a.name AS application_name, t.expires, t.created, u.tokens_revoked_before';
const FROM = 'FROM oauth2_access_token t JOIN auth_user u ON u.id = t.user_id LEFT JOIN oauth2_application a ON a.id = t.application_id';

/** A token as the expiry notices and `list_expiring_tokens` show it: never its secret. */
export interface ExpiringToken {
  id: number;
  userId: number;
  username: string;
  applicationId: number | null;
  applicationName: string | null;
  expires: Date;
  created: Date;
  /** The user's token cut-off: a token it covers is revoked, whatever its row says until the clean-up. */
  tokensRevokedBefore: Date | null;
}

/** Where a walk in expiry order stands: after this token. */
export interface ExpiryPosition {
  expires: Date;
  id: number;
}

/**
 * The statements about access tokens nearing their expiry (SPEC §15): the claim of the `token_expiring`
 * notices, what a claim took, the count behind `svc_tokens_expiring_soon` and the walk of
 * `list_expiring_tokens`. Beside `TokensRepository` (same table) so neither outgrows a file; that one's
 * `periodicStatements` lists these for the plan test.
 */
@Injectable()
export class ExpiringTokensRepository {
  constructor(private readonly prepared: PreparedStatements) {}

  /**
   * Stamps `claim` on at most `limit` tokens expiring in (now, until] that no pass has claimed: one
   * UPDATE, so of two nodes claiming at once each row goes to exactly one (the row lock on MySQL, the
   * write lock on SQLite, and `expiry_notice IS NULL` read again under it). How many it claimed.
   */
  claim(claim: string, now: Date, until: Date, limit: number): Promise<number> {
    const s = this.claimStatement(claim, now, until, limit);
    return this.prepared.run(s.sql, s.params);
  }

  /** The tokens one claim took, with their user's name and cut-off. */
  async claimedBy(claim: string): Promise<ExpiringToken[]> {
    const s = this.claimedStatement(claim);
    return (await this.prepared.rows(s.sql, s.params)).map(expiringToken);
  }

  /** Live tokens expiring in (now, until]: not covered by their user's cut-off nor the system's. */
  async count(now: Date, until: Date, systemCutoff: Date | null): Promise<number> {
    const s = this.countStatement(now, until, systemCutoff);
    const [row] = await this.prepared.rows(s.sql, s.params);
    return Number(row?.n ?? 0);
  }

  /** The next `limit` live tokens expiring in (now, until] after `after`, in expiry order. */
  async page(now: Date, until: Date, systemCutoff: Date | null, after: ExpiryPosition | null, limit: number): Promise<ExpiringToken[]> {
    const s = this.pageStatement(now, until, systemCutoff, after, limit);
    return (await this.prepared.rows(s.sql, s.params)).map(expiringToken);
  }

  /** What runs on a timer or over many rows, for the plan test (through TokensRepository.periodicStatements). */
  periodicStatements(now: Date): PlannedStatement[] {
    const until = new Date(now.getTime() + 7 * 86400_000);
    return [
      this.claimStatement('sample-claim', now, until, NOTICE_BATCH),
      this.claimedStatement('sample-claim'),
      this.countStatement(now, until, null),
      this.countStatement(now, until, now),
      this.pageStatement(now, until, null, null, EXPIRING_PAGE),
      this.pageStatement(now, until, null, { expires: until, id: 5 }, EXPIRING_PAGE),
    ];
  }

  private claimStatement(claim: string, now: Date, until: Date, limit: number): PlannedStatement {
    const d = (date: Date) => this.prepared.date(date);
    const sql = limitedStatement(
      this.prepared.dialect,
      'UPDATE oauth2_access_token SET expiry_notice = ?',
      'oauth2_access_token',
      'expiry_notice IS NULL AND expires > ? AND expires <= ?',
      limit,
      NOTICE_INDEX,
    );
    return { name: 'expiry notices: claim tokens expiring soon', sql, params: [claim, d(now), d(until)] };
  }

  private claimedStatement(claim: string): PlannedStatement {
    return {
      name: 'expiry notices: the tokens a claim took',
      sql: `${SELECT} ${FROM} WHERE t.expiry_notice = ?`,
      params: [claim],
    };
  }

  private countStatement(now: Date, until: Date, systemCutoff: Date | null): PlannedStatement {
    const live = this.live(now, until, systemCutoff);
    return {
      name: `svc_tokens_expiring_soon: live tokens expiring soon${systemCutoff ? ' (after a system cut-off)' : ''}`,
      sql: `SELECT COUNT(*) AS n FROM oauth2_access_token t JOIN auth_user u ON u.id = t.user_id WHERE ${live.where}`,
      params: live.params,
    };
  }

  /**
   * Keyset pages in (expires, id) order: `expires >= last` is the range on the expires index, and the
   * few tokens of the same instant already shown are left out by id.
   */
  private pageStatement(now: Date, until: Date, systemCutoff: Date | null, after: ExpiryPosition | null, limit: number): PlannedStatement {
    const from = after ?? { expires: now, id: Number.MAX_SAFE_INTEGER };
    const live = this.live(from.expires, until, systemCutoff, true);
    const sql =
      `${SELECT} ${FROM} WHERE ${live.where} AND NOT (t.expires = ? AND t.id <= ?) ` +
      `ORDER BY t.expires, t.id LIMIT ${limit}`;
    return { name: `list_expiring_tokens: a page${after ? ' after the first' : ''}`, sql, params: [...live.params, this.prepared.date(from.expires), from.id] };
  }

  private live(from: Date, until: Date, systemCutoff: Date | null, inclusive = false): { where: string; params: unknown[] } {
    const d = (date: Date) => this.prepared.date(date);
    const where = [
      `t.expires ${inclusive ? '>=' : '>'} ? AND t.expires <= ?`,
      '(u.tokens_revoked_before IS NULL OR t.created > u.tokens_revoked_before)',
      ...(systemCutoff ? ['t.created > ?'] : []),
    ];
    return { where: where.join(' AND '), params: [d(from), d(until), ...(systemCutoff ? [d(systemCutoff)] : [])] };
  }
}

function expiringToken(row: Record<string, unknown>): ExpiringToken {
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    username: String(row.username),
    applicationId: row.application_id == null ? null : Number(row.application_id),
    applicationName: row.application_name == null ? null : String(row.application_name),
    expires: dateFromDatabase(row.expires)!,
    created: dateFromDatabase(row.created)!,
    tokensRevokedBefore: dateFromDatabase(row.tokens_revoked_before),
  };
}
