import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, FindOptionsWhere } from 'typeorm';
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

  async update(id: number, changes: Partial<NewApplication>): Promise<void> {
    await this.repo.update({ id }, changes);
  }

  /** Its tokens and codes go with it (foreign keys cascade). */
  async delete(id: number): Promise<void> {
    await this.repo.delete({ id });
  }
}
