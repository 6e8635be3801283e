import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, MoreThan } from 'typeorm';
import { limitedStatement, PlannedStatement } from '../database/batch-statements';
import { PreparedStatements } from '../database/prepared-statements';
import { retryLockConflicts } from '../database/transactions';
import { DeviceCode } from './device-code.entity';

export type NewDeviceCode = Omit<DeviceCode, 'id'>;

/** The sweep deletes expired device codes in batches of this many rows. */
export const DEVICE_CODE_SWEEP_BATCH = 1000;

/**
 * Every statement about device codes (RFC 8628), beside AuthorizationCodesRepository. Each change of
 * state is a compare-and-swap on the row (`… WHERE id = ? AND state = ?`, affected rows checked), so
 * one decision, one poll count and one redemption win however many nodes race; DeviceCodes (oauth2/)
 * holds the rules. A lone statement that lost a Galera certification is simply run again.
 */
@Injectable()
export class DeviceCodesRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly prepared: PreparedStatements,
  ) {}

  private get repo() {
    return this.dataSource.getRepository(DeviceCode);
  }

  /** Throws a unique violation when either code's digest is taken (the caller draws new codes). */
  async insert(values: NewDeviceCode): Promise<number> {
    return (await this.repo.insert(values)).identifiers[0].id as number;
  }

  findByDeviceCodeHash(deviceCodeHash: string): Promise<DeviceCode | null> {
    return this.repo.findOneBy({ deviceCodeHash });
  }

  findByUserCodeHash(userCodeHash: string): Promise<DeviceCode | null> {
    return this.repo.findOneBy({ userCodeHash });
  }

  /** pending → approved or denied by `userId`, while not expired: true for the one decision that wins. */
  async decide(id: number, state: 'approved' | 'denied', userId: number, now: Date): Promise<boolean> {
    const result = await retryLockConflicts(() =>
      this.repo.update({ id, state: 'pending', expires: MoreThan(now) }, { state, userId, decidedAt: now }),
    );
    return result.affected === 1;
  }

  /**
   * Counts a poll of a pending code seen with `polls` polls: its time, and its interval (grown after a
   * `slow_down`). False when another poll or a decision changed the row since it was read.
   */
  async recordPoll(id: number, polls: number, now: Date, pollInterval: number): Promise<boolean> {
    const result = await retryLockConflicts(() =>
      this.repo.update({ id, polls, state: 'pending' }, { polls: polls + 1, lastPolled: now, pollInterval }),
    );
    return result.affected === 1;
  }

  /** approved → redeemed, inside the transaction that issues the tokens: true for the one redemption that wins. */
  async redeem(manager: EntityManager, id: number, now: Date): Promise<boolean> {
    const result = await manager.getRepository(DeviceCode).update({ id, state: 'approved', expires: MoreThan(now) }, { state: 'redeemed' });
    return result.affected === 1;
  }

  /** Deletes at most `limit` device codes that expired at or before `before`; how many. */
  deleteExpired(before: Date, limit = DEVICE_CODE_SWEEP_BATCH): Promise<number> {
    const s = this.expiredStatement(before, limit);
    return this.prepared.run(s.sql, s.params);
  }

  expiredStatement(before: Date, limit: number): PlannedStatement {
    const sql = limitedStatement(this.prepared.dialect, 'DELETE FROM oauth2_device_code', 'oauth2_device_code', 'expires <= ?', limit);
    return { name: 'device-code sweep: expired device codes', sql, params: [this.prepared.date(before)] };
  }

  /** What runs on a timer, for the plan test (test/statement-plans.e2e-spec.ts). */
  periodicStatements(sample: { now: Date }): PlannedStatement[] {
    return [this.expiredStatement(sample.now, DEVICE_CODE_SWEEP_BATCH)];
  }
}
