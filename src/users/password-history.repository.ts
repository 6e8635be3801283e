import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { PasswordHistoryEntry } from './password-history.entity';

/** How many hashes a user keeps: LOCAL_PASSWORD_HISTORY's maximum, whatever the setting is now (SPEC §22). */
export const PASSWORD_HISTORY_KEPT = 24;

/** Every statement about `password_history`. */
@Injectable()
export class PasswordHistoryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The user's last `count` hashes, newest first. */
  async recent(userId: number, count: number): Promise<string[]> {
    const rows = await this.dataSource.getRepository(PasswordHistoryEntry).find({
      select: { id: true, password: true },
      where: { userId },
      order: { id: 'DESC' },
      take: count,
    });
    return rows.map((row) => row.password);
  }

  /** A new password's hash, in the caller's transaction with the change itself; only the newest PASSWORD_HISTORY_KEPT stay. */
  async record(manager: EntityManager, userId: number, hash: string, at: Date): Promise<void> {
    const repo = manager.getRepository(PasswordHistoryEntry);
    await repo.insert({ userId, password: hash, created: at });
    // At most one row beyond the limit per change: read the user's ids (a handful) rather than a dialect's DELETE ... LIMIT.
    const rows = await repo.find({ select: { id: true }, where: { userId }, order: { id: 'DESC' } });
    const old = rows.slice(PASSWORD_HISTORY_KEPT).map((row) => row.id);
    if (old.length) await repo.delete({ id: In(old) });
  }

  /** An imported hash upgraded at a login (PasswordHasher): the history row of that password follows it. */
  async replaceHash(userId: number, verified: string, upgraded: string): Promise<void> {
    await this.dataSource.getRepository(PasswordHistoryEntry).update({ userId, password: verified }, { password: upgraded });
  }
}
