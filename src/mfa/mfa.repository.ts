import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull, LessThan, Or } from 'typeorm';
import { Transactions } from '../database/transactions';
import { User } from '../users/user.entity';
import { RecoveryCode } from './recovery-code.entity';
import { SecurityKey } from './security-key.entity';
import { TotpFactor } from './totp-factor.entity';

/** Every statement about second factors (issue 29's rule: services hold rules, repositories SQL). */
@Injectable()
export class MfaRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transactions: Transactions,
  ) {}

  /** Several changes at once (a factor and the flag on the user row), in one transaction retried on a lock conflict. */
  transaction<T>(work: (repository: MfaRepository) => Promise<T>): Promise<T> {
    return this.transactions.run((manager) => work(new ScopedMfaRepository(this.dataSource, this.transactions, manager)));
  }

  protected get manager(): EntityManager {
    return this.dataSource.manager;
  }

  totp(userId: number): Promise<TotpFactor | null> {
    return this.manager.findOneBy(TotpFactor, { userId });
  }

  /** A new pending secret replaces any earlier one that was never confirmed. */
  async saveTotp(factor: TotpFactor): Promise<void> {
    await this.manager.delete(TotpFactor, { userId: factor.userId });
    await this.manager.insert(TotpFactor, factor);
  }

  async confirmTotp(userId: number, at: Date, step: number): Promise<boolean> {
    const result = await this.manager.update(TotpFactor, { userId, confirmedAt: IsNull() }, { confirmedAt: at, lastStep: step });
    return !!result.affected;
  }

  /**
   * Spends the time step `step` of a confirmed secret: only the node whose UPDATE moved `last_step`
   * forward accepts the code, so a code is used once across every node.
   */
  async claimTotpStep(userId: number, step: number): Promise<boolean> {
    const result = await this.manager.update(TotpFactor, { userId, lastStep: Or(IsNull(), LessThan(step)) }, { lastStep: step });
    return !!result.affected;
  }

  async deleteTotp(userId: number): Promise<void> {
    await this.manager.delete(TotpFactor, { userId });
  }

  /** A secret that was started but never confirmed. */
  async deletePendingTotp(userId: number): Promise<void> {
    await this.manager.delete(TotpFactor, { userId, confirmedAt: IsNull() });
  }

  async replaceRecoveryCodes(userId: number, hashes: string[], now: Date): Promise<void> {
    await this.manager.delete(RecoveryCode, { userId });
    if (hashes.length) await this.manager.insert(RecoveryCode, hashes.map((codeHash) => ({ userId, codeHash, usedAt: null, created: now })));
  }

  /** Spends a recovery code: true for the one caller whose UPDATE marked it used. */
  async spendRecoveryCode(userId: number, codeHash: string, now: Date): Promise<boolean> {
    const result = await this.manager.update(RecoveryCode, { userId, codeHash, usedAt: IsNull() }, { usedAt: now });
    return !!result.affected;
  }

  recoveryCodesLeft(userId: number): Promise<number> {
    return this.manager.countBy(RecoveryCode, { userId, usedAt: IsNull() });
  }

  securityKeys(userId: number): Promise<SecurityKey[]> {
    return this.manager.find(SecurityKey, { where: { userId }, order: { id: 'ASC' } });
  }

  securityKeyByCredential(credentialId: string): Promise<SecurityKey | null> {
    return this.manager.findOneBy(SecurityKey, { credentialId });
  }

  async addSecurityKey(key: Omit<SecurityKey, 'id'>): Promise<number> {
    return (await this.manager.insert(SecurityKey, key)).identifiers[0].id as number;
  }

  async deleteSecurityKey(userId: number, id: number): Promise<boolean> {
    return !!(await this.manager.delete(SecurityKey, { userId, id })).affected;
  }

  /** A verified assertion moves the counter forward (compare-and-swap on the value read before). */
  async recordKeyUse(id: number, counterWas: number, counter: number, at: Date): Promise<boolean> {
    return !!(await this.manager.update(SecurityKey, { id, counter: counterWas }, { counter, lastUsed: at })).affected;
  }

  async deleteAll(userId: number): Promise<void> {
    await this.manager.delete(SecurityKey, { userId });
    await this.manager.delete(RecoveryCode, { userId });
    await this.manager.delete(TotpFactor, { userId });
  }

  /** Writes `auth_user.mfa_enabled` from the factors the user has now: a confirmed secret or a key. */
  async syncFlag(userId: number): Promise<boolean> {
    const totp = await this.manager.findOneBy(TotpFactor, { userId });
    const keys = await this.manager.countBy(SecurityKey, { userId });
    const enabled = !!totp?.confirmedAt || keys > 0;
    await this.manager.update(User, { id: userId }, { mfaEnabled: enabled });
    return enabled;
  }
}

/** The same statements inside one transaction. */
class ScopedMfaRepository extends MfaRepository {
  constructor(
    dataSource: DataSource,
    transactions: Transactions,
    private readonly scoped: EntityManager,
  ) {
    super(dataSource, transactions);
  }

  protected get manager(): EntityManager {
    return this.scoped;
  }
}
