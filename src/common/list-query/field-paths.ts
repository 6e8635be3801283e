import type { SelectQueryBuilder } from 'typeorm';
import type { Account } from '../principal';
import { BadRequest } from '../errors';
import { FieldType, hasOwn, ListSpec, RelatedList } from './list-spec';
import { rawRows } from './raw-rows';
import { filteringRefused } from './values';

/** A field path resolved to a column of the list's query. */
export interface ResolvedField {
  column: string;
  type: FieldType;
  /** The path's last part, as the 400s name it. */
  name: string;
}

/**
 * A related object, tied to the caller by the list's rule, whose fields beyond its summary a path reads:
 * allowed only while no row the caller may see relates to one the caller may not read.
 */
interface Guard {
  /** The join alias of the related object, and its property naming the user who may read it. */
  alias: string;
  owner: string;
  /** The whole path that needed it, as the 403 names it (`job_template__created_by__email`). */
  path: string;
}

/**
 * Field paths (`user`, `application__user__username`) to columns of a list's query, joining each related object
 * once, and the visibility rule of SPEC §19 through relations: a related object's summary is open to every
 * caller; beyond it, open to a caller who may read every such object, guarded where the list ties the object
 * to the caller (RelatedList.tiedToViewer), and 403 otherwise, whatever the value.
 */
export class FieldPaths<T extends object> {
  private readonly joined = new Map<string, string>();
  private readonly guards = new Map<string, Guard>();

  constructor(
    private readonly qb: SelectQueryBuilder<T>,
    private readonly alias: string,
    private readonly spec: ListSpec,
    private readonly viewer: Account,
  ) {}

  resolve(parts: string[], key: string): ResolvedField {
    let spec = this.spec;
    let alias = this.alias;
    // Set after a relation the caller may not read whole: what it shows beyond its summary needs a rule.
    let through: RelatedList | null = null;
    const visited = new Set<string>();
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      const last = i === parts.length - 1;
      const field = hasOwn(spec.fields, part) ? spec.fields[part] : undefined;
      if (field === 'secret') throw filteringRefused(part);
      const relation = spec.relations && hasOwn(spec.relations, part) ? spec.relations[part] : undefined;
      if (through && (field || relation) && !through.summary.includes(part)) this.beyondSummary(through, alias, parts.join('__'));
      if (last) {
        if (field) return { column: field.expression ? field.expression(alias) : `${alias}.${field.property}`, type: field.type, name: part };
        // A related object by itself is its id (`user=3`).
        if (relation) return { column: `${this.join(alias, part, relation.relation)}.id`, type: 'fk', name: part };
        throw new BadRequest(`${key}: "${part}" is not a field that can be filtered or ordered on here.`);
      }
      if (!relation) throw new BadRequest(`${key}: "${part}" is not a related object of this list.`);
      if (visited.has(relation.relation)) throw new BadRequest(`${key}: a path may visit "${part}" only once.`);
      visited.add(relation.relation);
      alias = this.join(alias, part, relation.relation);
      spec = relation.spec();
      through = relation.readableBy(this.viewer) ? null : relation;
    }
    throw new BadRequest(`Invalid field: ${key}.`);
  }

  /**
   * A path reads beyond the summary of a related object (join alias `alias`) the caller may not read whole:
   * guarded when the list ties that object to the caller, else refused at once, before any value is read.
   */
  private beyondSummary(relation: RelatedList, alias: string, path: string): void {
    if (relation.tiedToViewer === undefined) throw filteringRefused(path);
    if (!this.guards.has(alias)) this.guards.set(alias, { alias, owner: relation.tiedToViewer, path });
  }

  /**
   * 403 naming the path when a guard finds, among the rows the caller may see (`visible`: the list's query
   * with its joins, before any filter), one whose related object the caller may not read. Only the caller's
   * own rows are looked at, and whatever the filter's value: the answer tells nothing the list does not show.
   */
  async checkGuards(visible: SelectQueryBuilder<T>): Promise<void> {
    for (const guard of this.guards.values()) {
      const hidden = visible
        .clone()
        .orderBy()
        .select('1', 'hidden')
        .andWhere(`${guard.alias}.id IS NOT NULL AND (${guard.alias}.${guard.owner} IS NULL OR ${guard.alias}.${guard.owner} <> :lqViewer)`, { lqViewer: this.viewer.id })
        .limit(1);
      if ((await rawRows(hidden, false)).length) throw filteringRefused(guard.path);
    }
  }

  private join(from: string, name: string, relation: string): string {
    const key = `${from}.${relation}`;
    let joinAlias = this.joined.get(key);
    if (!joinAlias) {
      const existing = this.qb.expressionMap.joinAttributes.find((j) => j.entityOrProperty === key);
      joinAlias = existing?.alias.name ?? `q_${from}_${name}`;
      if (!existing) this.qb.leftJoin(key, joinAlias);
      this.joined.set(key, joinAlias);
    }
    return joinAlias;
  }
}
