import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { isLockConflict } from './errors';

const MAX_ATTEMPTS = 30;

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
        // On a Galera cluster a conflicting commit on another member aborts this transaction with a
        // deadlock error; a burst on one hot row (a user's session lock) can take many rounds.
        if (attempt >= MAX_ATTEMPTS || !isLockConflict(err)) throw err;
        await new Promise((r) => setTimeout(r, Math.min(5 + Math.random() * 20 * attempt, 400)));
      }
    }
  }

  /** `SELECT ... FOR UPDATE` where the database has it; SQLite's transaction already holds the write lock. */
  get forUpdate(): string {
    return this.isMysql ? ' FOR UPDATE' : '';
  }
}
