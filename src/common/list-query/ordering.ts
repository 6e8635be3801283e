import type { SelectQueryBuilder } from 'typeorm';
import { BadRequest } from '../errors';
import { ListSpec, MAX_ORDER_FIELDS } from './list-spec';
import type { FieldPaths } from './field-paths';

/**
 * `order_by=f1,-f2` (or `order`) on fields and paths, as AWX's OrderByBackend; ties keep the list's default
 * order, which is by id unless the list says otherwise (SPEC §19).
 */
export function orderList<T extends object>(qb: SelectQueryBuilder<T>, alias: string, spec: ListSpec, paths: FieldPaths<T>, values: string[]): void {
  let orderedById = false;
  let first = true;
  const add = (column: string, direction: 'ASC' | 'DESC') => {
    if (first) qb.orderBy(column, direction);
    else qb.addOrderBy(column, direction);
    first = false;
  };
  const items = values.flatMap((v) => v.split(',')).filter((v) => v !== '');
  if (items.length > MAX_ORDER_FIELDS) throw new BadRequest(`order_by: at most ${MAX_ORDER_FIELDS} fields, ${items.length} given.`);
  for (const item of items) {
    const descending = item.startsWith('-');
    const field = descending ? item.slice(1) : item;
    if (!/^[\x21-\x7e]+$/.test(field)) throw new BadRequest(`Invalid order_by field: ${JSON.stringify(field).slice(0, 100)}.`);
    const { column } = paths.resolve(field.split('__'), field);
    add(column, descending ? 'DESC' : 'ASC');
    if (column === `${alias}.id`) orderedById = true;
  }
  if (orderedById) return;
  for (const [property, direction] of spec.defaultOrder ?? [['id', 'ASC']]) add(`${alias}.${property}`, direction);
}
