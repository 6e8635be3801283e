import type { FindOptionsRelations, FindOptionsWhere, Repository } from 'typeorm';
import { queryPage } from '../common/list-query/list-page';
import type { ListSpec } from '../common/list-query/list-spec';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { isForeignKeyViolation } from '../database/errors';
import { Clock } from '../common/clock';
import { NotFound } from '../common/errors';
import type { OwnedResource } from './owned-resource.entity';
import { assertCanChange, canRead, ownerFilter } from './ownership';
import type { Page } from '../common/pagination';
import type { Principal } from '../common/principal';

export type RowValues<T> = QueryDeepPartialEntity<T>;

/**
 * Reads and writes one table of user-owned objects under the rules of ownership.ts, so each
 * resource service only says what its fields are. Writes are single INSERT/UPDATE/DELETE
 * statements (never `save()`, whose own transaction breaks on SQLite under concurrency).
 */
export class OwnedRecords<T extends OwnedResource> {
  private readonly relations: FindOptionsRelations<T>;

  private readonly relationNames: string[];

  constructor(
    private readonly repository: Repository<T>,
    private readonly clock: Clock,
    /** What the list may be filtered and ordered on (AWX's query language, SPEC §19). */
    private readonly list: ListSpec,
    relations: string[] = [],
  ) {
    this.relationNames = ['createdBy', 'modifiedBy', ...relations];
    this.relations = Object.fromEntries(this.relationNames.map((name) => [name, true])) as FindOptionsRelations<T>;
  }

  /** A page of the objects the caller may see (filtered as the query asks, oldest first), each turned into its API form. */
  async page(principal: Principal, query: Record<string, unknown>, path: string, view: (row: T) => object): Promise<Page<object>> {
    const owner = ownerFilter(principal);
    const qb = this.repository.createQueryBuilder('r');
    for (const name of this.relationNames) qb.leftJoinAndSelect(`r.${name}`, `r_${name}`);
    if (owner !== undefined) qb.where('r.createdById = :owner', { owner });
    return queryPage(qb, this.list, query, path, principal.user, (rows) => rows.map(view));
  }

  find(id: number): Promise<T | null> {
    return this.repository.findOne({ where: { id } as FindOptionsWhere<T>, relations: this.relations });
  }

  /** The object when the caller may see it; otherwise 404, whether or not it exists. */
  async visible(principal: Principal, id: number): Promise<T> {
    const row = await this.find(id);
    if (!row || !canRead(principal, row.createdById)) throw new NotFound();
    return row;
  }

  /** The object when the caller may change it: 404 when it is not visible, 403 when it is only visible. */
  async changeable(principal: Principal, id: number): Promise<T> {
    const row = await this.find(id);
    if (!row) throw new NotFound();
    assertCanChange(principal, row.createdById);
    return row;
  }

  /**
   * Inserts an object owned by the caller. When a row it refers to (a job's template, the caller
   * itself) is deleted meanwhile, the foreign key refuses the INSERT: that is a 404, and nothing is written.
   */
  async create(principal: Principal, values: RowValues<T>): Promise<T> {
    const now = this.clock.now();
    const stamps = { createdById: principal.user.id, modifiedById: principal.user.id, created: now, modified: now };
    try {
      const result = await this.repository.insert({ ...values, ...stamps } as RowValues<T>);
      return await this.existing(result.identifiers[0].id);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new NotFound();
      throw err;
    }
  }

  async update(principal: Principal, row: T, values: RowValues<T>): Promise<T> {
    const stamps = { modifiedById: principal.user.id, modified: this.clock.now() };
    await this.repository.update({ id: row.id } as FindOptionsWhere<T>, { ...values, ...stamps } as RowValues<T>);
    return this.existing(row.id);
  }

  async remove(row: T): Promise<void> {
    await this.repository.delete({ id: row.id } as FindOptionsWhere<T>);
  }

  /** Re-reads a row just written; a concurrent DELETE in between makes it a 404, not a 500. */
  private async existing(id: number): Promise<T> {
    const row = await this.find(id);
    if (!row) throw new NotFound();
    return row;
  }
}
