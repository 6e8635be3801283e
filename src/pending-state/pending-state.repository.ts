import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, LessThan } from 'typeorm';
import { limitedStatement, PlannedStatement } from '../database/batch-statements';
import { PreparedStatements } from '../database/prepared-statements';
import { PendingState } from './pending-state.entity';

/** The sweep deletes expired entries in batches of this many rows. */
export const PENDING_STATE_SWEEP_BATCH = 1000;

/**
 * Every statement about the short-lived login state (issue 29's rule: the service holds the rules, this
 * the SQL). The sweep and the per-address count are planned by the `(expires)` and `(client_ip, expires)`
 * indexes, which the plan test (test/statement-plans.e2e-spec.ts) checks through `periodicStatements`.
 */
@Injectable()
export class PendingStateRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly prepared: PreparedStatements,
  ) {}

  private get repo() {
    return this.dataSource.getRepository(PendingState);
  }

  /** Throws a unique violation when the key is taken. */
  async insert(values: PendingState): Promise<void> {
    await this.repo.insert(values);
  }

  find(key: string): Promise<PendingState | null> {
    return this.repo.findOneBy({ key });
  }

  /** True for the one caller whose DELETE removed the row. */
  async delete(key: string): Promise<boolean> {
    return !!(await this.repo.delete({ key })).affected;
  }

  /** Deletes the entry under `key` only if it expired before `now` (a leftover the sweep has not reached). */
  async deleteIfExpired(key: string, now: Date): Promise<boolean> {
    return !!(await this.repo.delete({ key, expires: LessThan(now) })).affected;
  }

  /**
   * The keys of one address's pending logins beyond the `keep` newest, by creation then key. The address's
   * rows come from the (client_ip, expires) index; there are about `keep` of them, since every new one ends
   * the surplus.
   */
  async beyondNewest(clientIp: string, keep: number): Promise<string[]> {
    const s = this.beyondNewestStatement(clientIp, keep);
    return (await this.prepared.rows(s.sql, s.params)).map((r) => String(r.state_key));
  }

  async deleteKeys(keys: string[]): Promise<void> {
    await this.repo.delete({ key: In(keys) });
  }

  /** Every pending login (an entry with a client address) in the store: a covering range of the (client_ip, expires) index. */
  async countPendingLogins(): Promise<number> {
    const [row] = await this.prepared.rows(this.pendingLoginsCount().sql, []);
    return Number(row?.n ?? 0);
  }

  /** Deletes at most `limit` pending logins that expire before `before`; how many. */
  deletePendingLoginsExpiringBefore(before: Date, limit = PENDING_STATE_SWEEP_BATCH): Promise<number> {
    const s = this.ceilingStatement(before, limit);
    return this.prepared.run(s.sql, s.params);
  }

  private beyondNewestStatement(clientIp: string, keep: number): PlannedStatement {
    return {
      name: 'pending state: the logins of one address beyond its newest (the per-address cap, at every pending login)',
      sql: `SELECT state_key FROM pending_state WHERE client_ip = ? ORDER BY created DESC, state_key DESC LIMIT ${PENDING_STATE_SWEEP_BATCH} OFFSET ${Math.trunc(keep)}`,
      params: [clientIp],
    };
  }

  private pendingLoginsCount(): PlannedStatement {
    return { name: 'pending state: count of pending logins (the global ceiling)', sql: "SELECT COUNT(*) AS n FROM pending_state WHERE client_ip > ''", params: [] };
  }

  private ceilingStatement(before: Date, limit: number): PlannedStatement {
    const sql = limitedStatement(this.prepared.dialect, 'DELETE FROM pending_state', 'pending_state', "expires < ? AND client_ip > ''", limit, undefined, 'rowid');
    return { name: 'pending state: the global ceiling, pending logins nearest their expiry', sql, params: [this.prepared.date(before)] };
  }

  /** Deletes at most `limit` entries expired before `now`; how many. */
  deleteExpired(now: Date, limit = PENDING_STATE_SWEEP_BATCH): Promise<number> {
    const s = this.expiredStatement(now, limit);
    return this.prepared.run(s.sql, s.params);
  }

  private expiredStatement(now: Date, limit: number): PlannedStatement {
    const sql = limitedStatement(this.prepared.dialect, 'DELETE FROM pending_state', 'pending_state', 'expires < ?', limit, undefined, 'rowid');
    return { name: 'pending-state sweep: expired entries', sql, params: [this.prepared.date(now)] };
  }

  /** What runs on a timer or for every pending login, for the plan test. */
  periodicStatements(sample: { now: Date }): PlannedStatement[] {
    return [
      this.expiredStatement(sample.now, PENDING_STATE_SWEEP_BATCH),
      this.pendingLoginsCount(),
      this.ceilingStatement(new Date(sample.now.getTime() + 60_000), PENDING_STATE_SWEEP_BATCH),
      this.beyondNewestStatement('10.8.1', 30),
    ];
  }
}
