import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, FindOptionsWhere, IsNull, Not } from 'typeorm';
import { Application } from './application.entity';

export type NewApplication = Omit<Application, 'id' | 'user'>;

/**
 * Every statement about OAuth 2 applications (issue 29), apart from TokensRepository as their own aggregate;
 * ApplicationsService holds the rules (secrets, what may change, who authenticates).
 */
@Injectable()
export class ApplicationsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get repo() {
    return this.dataSource.getRepository(Application);
  }

  async insert(values: NewApplication): Promise<number> {
    return (await this.repo.insert(values)).identifiers[0].id as number;
  }

  /** One application with its owner. */
  findById(id: number): Promise<Application | null> {
    return this.repo.findOne({ where: { id }, relations: { user: true } });
  }

  findByClientId(clientId: string): Promise<Application | null> {
    return this.repo.findOne({ where: { clientId }, relations: { user: true } });
  }

  /** The applications a list shows, with their owner, before its filters and page. */
  listQuery(where: FindOptionsWhere<Application>) {
    return this.repo.createQueryBuilder('a').leftJoinAndSelect('a.user', 'q_a_user').where(where);
  }

  /** Whether a row was changed: `only` adds conditions the row must still meet as it is written. */
  async update(id: number, changes: Partial<NewApplication>, only: Pick<FindOptionsWhere<Application>, 'skipAuthorization'> = {}): Promise<boolean> {
    return !!(await this.repo.update({ ...only, id }, changes)).affected;
  }

  /** The service accounts of the applications `ownerId` owns (their rows go with the owner by cascade). */
  async serviceAccountsOwnedBy(ownerId: number): Promise<number[]> {
    const rows = await this.repo.find({ select: { serviceAccountId: true }, where: { userId: ownerId, serviceAccountId: Not(IsNull()) } });
    return rows.map((r) => r.serviceAccountId!);
  }

  /** Its tokens and codes go with it (foreign keys cascade). */
  async delete(id: number): Promise<void> {
    await this.repo.delete({ id });
  }
}
