import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { limitedStatement, PlannedStatement } from '../database/batch-statements';
import { PreparedStatements } from '../database/prepared-statements';
import { Transactions } from '../database/transactions';
import { AuthorizationCode } from './authorization-code.entity';

export type NewAuthorizationCode = Omit<AuthorizationCode, 'id'>;

/**
 * Every statement about authorization codes (issue 29): the tokens module's second repository, split from
 * TokensRepository by table so that neither outgrows a file. AuthorizationCodes (oauth2/) holds the rules
 * and calls these; TokensRepository lists the clean-up statement among its periodic ones.
 */
@Injectable()
export class AuthorizationCodesRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly prepared: PreparedStatements,
    private readonly transactions: Transactions,
  ) {}

  private get repo() {
    return this.dataSource.getRepository(AuthorizationCode);
  }

  async insert(values: NewAuthorizationCode): Promise<number> {
    return (await this.repo.insert(values)).identifiers[0].id as number;
  }

  findByHash(codeHash: string): Promise<AuthorizationCode | null> {
    return this.repo.findOneBy({ codeHash });
  }

  /** Compare-and-swap on `used_at`: true for the one redemption that wins, which stamps its family on the code. */
  async redeem(id: number, now: Date, family: string): Promise<boolean> {
    return (await this.repo.update({ id, usedAt: IsNull() }, { usedAt: now, family })).affected === 1;
  }

  /**
   * Marks a code replayed in a transaction, which waits for a redemption still saving its tokens (that one
   * holds the row); then the family the redemption stamped, if any.
   */
  async markReplayed(id: number, now: Date): Promise<string | null> {
    await this.transactions.run((manager) => manager.getRepository(AuthorizationCode).update({ id }, { replayedAt: now }));
    return (await this.repo.findOneBy({ id }))?.family ?? null;
  }

  /** Inside the transaction that saves a code's tokens: holds the code's row; false when it was replayed meanwhile. */
  async lockUnreplayed(manager: EntityManager, id: number): Promise<boolean> {
    const rows: { replayed_at: unknown }[] = await manager.query(
      `SELECT replayed_at FROM oauth2_authorization_code WHERE id = ?${this.transactions.forUpdate}`,
      [id],
    );
    return rows.length === 1 && rows[0].replayed_at === null;
  }

  /** The codes of one user, or (null) everyone's, deleted with a token cut-off. */
  async deleteOf(manager: EntityManager, userId: number | null): Promise<void> {
    const repo = manager.getRepository(AuthorizationCode);
    if (userId === null) await repo.createQueryBuilder().delete().execute();
    else await repo.delete({ userId });
  }

  /** Deletes at most `limit` codes that expired at or before `now`; how many. */
  deleteExpired(now: Date, limit: number): Promise<number> {
    const s = this.expiredStatement(now, limit);
    return this.prepared.run(s.sql, s.params);
  }

  expiredStatement(now: Date, limit: number): PlannedStatement {
    const sql = limitedStatement(this.prepared.dialect, 'DELETE FROM oauth2_authorization_code', 'oauth2_authorization_code', 'expires <= ?', limit);
    return { name: 'cleartokens: expired authorization codes', sql, params: [this.prepared.date(now)] };
  }
}
