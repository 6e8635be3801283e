import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { isLockConflict } from './errors';

const MAX_ATTEMPTS = 30;

/** What runs once a transaction of Transactions.run has committed (nothing of it when it rolls back). */
const committed = new WeakMap<EntityManager, (() => void)[]>();

/**
 * Runs `then` once the transaction of `manager` commits, or at once when `manager` is no transaction of
 * Transactions.run (SPEC §23: an event about a change is written only if the change is).
 */
export function afterCommit(manager: EntityManager, then: () => void): void {
  const waiting = committed.get(manager);
  if (waiting) waiting.push(then);
  else then();
}

/** `work` in a transaction whose afterCommit callbacks run after it commits. */
async function withCommitHooks<T>(transaction: (work: (manager: EntityManager) => Promise<T>) => Promise<T>, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  let used: EntityManager | undefined;
  try {
    const result = await transaction((manager) => {
      used = manager;
      committed.set(manager, []);
      return work(manager);
    });
    for (const then of committed.get(used!) ?? []) then();
    return result;
  } finally {
    if (used) committed.delete(used);
  }
}

/**
 * Runs a MySQL transaction or autocommit statement again while it fails on a lock conflict, which left
 * nothing applied. On a Galera cluster a conflicting commit on another member aborts it with a deadlock
 * error, and a burst on one hot row (a user's session lock, a login throttle counter) can take many rounds:
 * up to MAX_ATTEMPTS, with a growing random pause (at most 400 ms).
 */
export async function retryLockConflicts<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= MAX_ATTEMPTS || !isLockConflict(err)) throw err;
      await new Promise((r) => setTimeout(r, Math.min(5 + Math.random() * 20 * attempt, 400)));
    }
  }
}

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
      const next = this.sqliteQueue.then(() => withCommitHooks((w) => this.dataSource.transaction(w), work));
      this.sqliteQueue = next.catch(() => undefined);
      return next;
    }
    return this.withRetry(work);
  }

  private withRetry<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return retryLockConflicts(() => withCommitHooks((w) => this.dataSource.transaction('READ COMMITTED', w), work));
  }

  /** `SELECT ... FOR UPDATE` where the database has it; SQLite's transaction already holds the write lock. */
  get forUpdate(): string {
    return this.isMysql ? ' FOR UPDATE' : '';
  }
}
