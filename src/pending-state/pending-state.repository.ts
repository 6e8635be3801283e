import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, LessThan, MoreThan } from 'typeorm';
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

  countLive(clientIp: string, now: Date): Promise<number> {
    return this.repo.count({ where: { clientIp, expires: MoreThan(now) } });
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

  /** What runs on a timer or for every anonymous login start, for the plan test. */
  periodicStatements(sample: { now: Date }): PlannedStatement[] {
    return [
      this.expiredStatement(sample.now, PENDING_STATE_SWEEP_BATCH),
      {
        name: 'pending state: live entries of one address',
        sql: 'SELECT COUNT(*) AS n FROM pending_state WHERE client_ip = ? AND expires > ?',
        params: ['10.9.0.1', this.prepared.date(sample.now)],
      },
    ];
  }
}
