import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { Clock } from '../common/clock';
import { Transactions } from '../database/transactions';
import { SettingsService } from '../settings/settings.service';
import { AuthorizationCode } from '../tokens/authorization-code.entity';
import { TokenRevocationService } from '../tokens/token-revocation.service';
import { newFamily, secretHash } from '../tokens/token-secrets';
import { RequestTrace } from '../common/request-context';

export interface NewCode {
  secret: string;
  applicationId: number;
  userId: number;
  redirectUri: string | null;
  scope: string;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
}

/**
 * Authorization codes (RFC 6749 §4.1.2, §10.5): stored as a hash, redeemed once by compare-and-swap,
 * and a second presentation revokes every token the first one produced.
 */
@Injectable()
export class AuthorizationCodes {
  private readonly logger = new Logger('oauth2');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transactions: Transactions,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly revocation: TokenRevocationService,
  ) {}

  private get repo() {
    return this.dataSource.getRepository(AuthorizationCode);
  }

  async save(code: NewCode, trace: RequestTrace): Promise<AuthorizationCode> {
    const now = this.clock.now();
    const lifetime = this.settings.get('OAUTH2_PROVIDER').AUTHORIZATION_CODE_EXPIRE_SECONDS;
    const values = {
      codeHash: secretHash(code.secret),
      applicationId: code.applicationId,
      userId: code.userId,
      redirectUri: code.redirectUri,
      scope: code.scope,
      codeChallenge: code.codeChallenge,
      codeChallengeMethod: code.codeChallengeMethod,
      expires: new Date(now.getTime() + lifetime * 1000),
      usedAt: null,
      family: null,
      replayedAt: null,
      created: now,
    };
    const result = await this.repo.insert(values);
    const saved = Object.assign(new AuthorizationCode(), values, { id: result.identifiers[0].id as number });
    this.logger.log({ event: 'authorization_code_issued', code_id: saved.id, application_id: code.applicationId, user_id: code.userId, pkce: !!code.codeChallenge, ...trace });
    return saved;
  }

  findBySecret(secret: string): Promise<AuthorizationCode | null> {
    return this.repo.findOneBy({ codeHash: secretHash(secret) });
  }

  isExpired(code: AuthorizationCode): boolean {
    return code.expires.getTime() <= this.clock.now().getTime();
  }

  /** The one redemption that wins the compare-and-swap gets the family its tokens will carry. */
  async redeem(code: AuthorizationCode): Promise<string | null> {
    const family = newFamily();
    const result = await this.repo.update({ id: code.id, usedAt: IsNull() }, { usedAt: this.clock.now(), family });
    return result.affected === 1 ? family : null;
  }

  /**
   * A second presentation (RFC 6749 §4.1.2): mark the code, then revoke what it issued. Marking
   * waits for a redemption still saving its tokens (it holds the row), so nothing slips through.
   */
  async replayed(code: AuthorizationCode, trace: RequestTrace): Promise<void> {
    await this.transactions.run((manager) => manager.getRepository(AuthorizationCode).update({ id: code.id }, { replayedAt: this.clock.now() }));
    const current = await this.repo.findOneBy({ id: code.id });
    this.logger.warn({ event: 'authorization_code_replayed', code_id: code.id, application_id: code.applicationId, user_id: code.userId, ...trace });
    if (current?.family) await this.revocation.revokeFamily(current.family, 'authorization_code_replayed', trace);
  }

  /** Inside the transaction that saves the tokens: holds the code row and refuses a replayed code. */
  async lockUnreplayed(codeId: number, manager: EntityManager): Promise<boolean> {
    const rows: { replayed_at: unknown }[] = await manager.query(
      `SELECT replayed_at FROM oauth2_authorization_code WHERE id = ?${this.transactions.forUpdate}`,
      [codeId],
    );
    return rows.length === 1 && rows[0].replayed_at === null;
  }
}
