import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

const MYSQL_RETRYABLE = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']);

/**
 * Runs work in one transaction on either database.
 * SQLite (better-sqlite3) has a single connection per process, so transactions are queued in
 * process; MySQL transactions run concurrently and are retried on deadlock.
 */
@Injectable()
export class Transactions {
  private sqliteQueue: Promise<unknown> = Promise.resolve();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  get isMysql(): boolean {
    return this.dataSource.options.type === 'mysql';
  }

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (!this.isMysql) {
      const next = this.sqliteQueue.then(() => this.dataSource.transaction(work));
      this.sqliteQueue = next.catch(() => undefined);
      return next;
    }
    return this.withRetry(work);
  }

  private async withRetry<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction('READ COMMITTED', work);
      } catch (err) {
        const code = err?.code ?? err?.driverError?.code;
        if (attempt >= 8 || !MYSQL_RETRYABLE.has(code)) throw err;
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
      }
    }
  }

  /** `SELECT ... FOR UPDATE` where the database has it; SQLite's transaction already holds the write lock. */
  get forUpdate(): string {
    return this.isMysql ? ' FOR UPDATE' : '';
  }
}
