import type { z } from 'zod';
import { validateBody } from '../common/validation';
import type { OwnedRecords, RowValues } from './owned-records';
import type { OwnedResource } from './owned-resource.entity';
import type { Page } from '../common/pagination';
import type { Principal } from '../common/principal';
import type { ActivityRecord, StreamKind, StreamOperation } from '../common/activity-record';
import { changesOf, fieldsOf, namedSummary } from '../common/activity-changes';

/** What one kind of user-owned object is: its path, body rules, columns and API form. */
export interface OwnedResourceDefinition<T extends OwnedResource> {
  /** The list path, e.g. `/api/v2/hosts/`. */
  path: string;
  /** The body of a create or full replace; PATCH takes it partial. Unknown fields are ignored. */
  schema: z.ZodObject;
  /** The entity property each API field is stored in (`inventory` → `inventoryId`). */
  columns: Record<string, keyof T & string>;
  /** Turns validated values into stored ones (credentials encrypt); `current` is the row being changed. */
  prepare?(input: Record<string, unknown>, current?: T): Record<string, unknown>;
  /** Column values of a new row for the optional fields the body left out. */
  defaults: RowValues<T>;
  view(row: T, principal: Principal): Record<string, unknown>;
  /** AWX's model name of the kind in the activity stream (SPEC §23). */
  streamKind?: StreamKind;
}

/**
 * List, read, create, replace, patch and delete for one kind of owned object: the same flow for
 * hosts, credentials and job templates. Visibility comes first (404 or 403), then validation (400),
 * then one write.
 */
export class OwnedResourceService<T extends OwnedResource> {
  constructor(
    protected readonly records: OwnedRecords<T>,
    protected readonly definition: OwnedResourceDefinition<T>,
    private readonly activity?: ActivityRecord,
  ) {}

  list(principal: Principal, query: Record<string, unknown>): Promise<Page<object>> {
    return this.records.page(principal, query, this.definition.path, (row) => this.definition.view(row, principal));
  }

  async get(principal: Principal, id: number): Promise<Record<string, unknown>> {
    return this.definition.view(await this.records.visible(principal, id), principal);
  }

  async create(principal: Principal, body: unknown): Promise<Record<string, unknown>> {
    const input = validateBody(this.definition.schema, body);
    const values = { ...this.definition.defaults, ...this.values(input) } as RowValues<T>;
    const row = await this.records.create(principal, values);
    this.streamed('create', principal, row);
    return this.definition.view(row, principal);
  }

  /** PUT (`partial` false: required fields must be sent) and PATCH; fields left out keep their values. */
  async update(principal: Principal, id: number, body: unknown, partial: boolean): Promise<Record<string, unknown>> {
    const current = await this.records.changeable(principal, id);
    const input = validateBody(this.definition.schema, body, { partial });
    const row = await this.records.update(principal, current, this.values(input, current));
    this.streamed('update', principal, row, current);
    return this.definition.view(row, principal);
  }

  async remove(principal: Principal, id: number): Promise<void> {
    const row = await this.records.changeable(principal, id);
    await this.records.remove(row);
    this.streamed('delete', principal, row);
  }

  /**
   * The stream's entry (SPEC §23): the writable fields as the API reads them (a credential's secret inputs
   * `"$encrypted$"`), all with `id` for a create or delete, those that changed for an update.
   */
  private streamed(operation: Exclude<StreamOperation, 'associate' | 'disassociate'>, principal: Principal, row: T, before?: T): void {
    const kind = this.definition.streamKind;
    if (!kind || !this.activity) return;
    const writable = (r: T) => {
      const shown = this.definition.view(r, principal);
      return Object.fromEntries(Object.keys(this.definition.schema.shape).map((f) => [f, shown[f]]));
    };
    const changes = before ? changesOf(writable(before), writable(row)) : { ...fieldsOf(writable(row)), id: row.id };
    if (!Object.keys(changes).length) return;
    this.activity.record({ operation, object1: kind, changes, objects: [{ kind, id: row.id, summary: namedSummary(row) }], actor: principal.user });
  }

  /** Column values for the fields the body gave (validation leaves out the ones it did not). */
  private values(input: Record<string, unknown>, current?: T): RowValues<T> {
    const prepared = this.definition.prepare ? this.definition.prepare(input, current) : input;
    const values: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(prepared)) values[this.definition.columns[field]] = value;
    return values as RowValues<T>;
  }
}
