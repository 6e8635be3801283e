import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, LessThan } from 'typeorm';
import type { ClaimsRecord } from './claims-record';
import { LoginClaims } from './login-claims.entity';

/** A stored login as the dry run replays it. */
export interface StoredLogin {
  userId: number;
  source: string;
  loginAt: Date;
  allowed: boolean;
  claims: ClaimsRecord;
}

/** Every statement about the stored claims of logins (SPEC §21). */
@Injectable()
export class LoginClaimsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The user's latest login through `source` replaces the one before (one row per user and source). */
  async store(manager: EntityManager, row: Omit<StoredLogin, 'claims'> & { claims: ClaimsRecord }): Promise<void> {
    const repository = manager.getRepository(LoginClaims);
    const values = { loginAt: row.loginAt, allowed: row.allowed, claims: JSON.stringify(row.claims) };
    const updated = await repository.update({ userId: row.userId, source: row.source }, values);
    if (!updated.affected) await repository.insert({ userId: row.userId, source: row.source, ...values });
  }

  async latestOf(userId: number, source: string): Promise<StoredLogin | null> {
    const row = await this.dataSource.getRepository(LoginClaims).findOneBy({ userId, source });
    return row ? stored(row) : null;
  }

  /** The `count` users who logged in through `source` most recently, newest first. */
  async recent(source: string, count: number): Promise<StoredLogin[]> {
    const rows = await this.dataSource.getRepository(LoginClaims).find({ where: { source }, order: { loginAt: 'DESC', userId: 'DESC' }, take: count });
    return rows.map(stored);
  }

  /** Deletes the records older than `cutoff` (one row per user and source: one statement); returns how many went. */
  async sweep(cutoff: Date): Promise<number> {
    return (await this.dataSource.getRepository(LoginClaims).delete({ loginAt: LessThan(cutoff) })).affected ?? 0;
  }
}

function stored(row: LoginClaims): StoredLogin {
  return { userId: row.userId, source: row.source, loginAt: row.loginAt, allowed: row.allowed, claims: JSON.parse(row.claims) as ClaimsRecord };
}

