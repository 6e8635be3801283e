import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { MoreThan, Repository } from 'typeorm';
import { SsoSession } from './sso-session.entity';

/** Which of a provider's recorded sessions a logout names: a subject, a provider session, or both. */
export interface SsoSessionMatch {
  provider: string;
  subject?: string;
  providerSession?: string;
}

/** Every statement about `sso_session` (issue 29: a repository per aggregate). */
@Injectable()
export class SsoSessionsRepository {
  constructor(@InjectRepository(SsoSession) private readonly rows: Repository<SsoSession>) {}

  async insert(row: SsoSession): Promise<void> {
    await this.rows.insert(row);
  }

  /** Reads and deletes one session's record: at most one caller gets it. */
  async take(sessionId: number): Promise<SsoSession | null> {
    const row = await this.rows.findOneBy({ sessionId });
    if (!row) return null;
    const removed = await this.rows.delete({ sessionId });
    return removed.affected ? row : null;
  }

  /**
   * One page of the session ids a logout names, after `afterId` in id order: each page is a range of
   * one of the two indexes (InnoDB and SQLite both keep the primary key in a secondary index, in order).
   */
  async sessionIds(match: SsoSessionMatch, afterId: number, limit: number): Promise<number[]> {
    const where = {
      provider: match.provider,
      ...(match.subject !== undefined ? { subject: match.subject } : {}),
      ...(match.providerSession !== undefined ? { providerSession: match.providerSession } : {}),
      sessionId: MoreThan(afterId),
    };
    const rows = await this.rows.find({ select: { sessionId: true }, where, order: { sessionId: 'ASC' }, take: limit });
    return rows.map((row) => row.sessionId);
  }
}
