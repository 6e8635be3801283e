import type { Account } from '../principal';

/**
 * What a list declares to AWX's query language (SPEC §19: FieldLookupBackend, OrderByBackend, DRF's
 * SearchFilter): the fields it exposes, their types, which are secret, the related objects it can be filtered
 * through (`user__username`) and its search fields. Everything else is refused: an unknown field or lookup, a
 * wrong value, a repeated relation, a bad regex, more than MAX_CONDITIONS conditions are 400; a secret is 403,
 * and so is a related object's field beyond its summary for a caller who may not read that object itself
 * (issue 28: counting rows must not reveal what the caller cannot read; issue 40: what the list ties to the
 * caller, its own user for one, is open; issue 56: what it does not tie to the caller is closed, whatever the
 * rows hold).
 */
export type FieldType = 'int' | 'string' | 'bool' | 'datetime' | 'fk';

export interface ListSpec {
  /**
   * API field name -> entity property (and its type), or 'secret' for what may never be filtered on. A field
   * with an `expression` is computed from the row's columns (a role's `name` from its `role_field`).
   */
  fields: Record<string, ListField | 'secret'>;
  /** Related objects by API name: the entity relation to join, and what that object exposes. */
  relations?: Record<string, RelatedList>;
  /** Fields `search=` looks in (case-insensitively). */
  search: string[];
  /** The list's own order, also the tie-break after `order_by` (default: by id). */
  defaultOrder?: [string, 'ASC' | 'DESC'][];
  /** The list reads AWX's reserved `role_level` itself (organizations, teams; SPEC §21); on any other list it is a 400. */
  roleLevel?: boolean;
}

export interface ListField {
  property: string;
  type: FieldType;
  /** SQL over the row's alias instead of the property's column. */
  expression?: (alias: string) => string;
}

/** A related object a list can be filtered and ordered through. */
export interface RelatedList {
  relation: string;
  spec: () => ListSpec;
  /** The fields the list itself shows of the object (its summary_fields entry): open to every caller. */
  summary: readonly string[];
  /** Whether the caller may read every object of this kind (then the rest of `spec` is open at once). */
  readableBy: (viewer: Account) => boolean;
  /**
   * Set when the list's own rule ties the related object of every row a caller sees to that caller: the
   * property of the object naming the user who may read it (`id` for the creator of what the caller owns or a
   * token's user, `createdById` for a job's template, which only its owner launches). The rest of `spec` is
   * then open, and a guard still checks that no row the caller sees reaches an object of someone else.
   * Unset (a `modified_by`: whoever last changed the row; a token's application: anyone's), the rest is 403 to
   * a caller who may not read every such object, whatever the value and whatever the rows hold today: the
   * relation may reach another's object, so the answer is the relation's, never the data's (issue 56).
   */
  tiedToViewer?: string;
}

export type QueryParams = Record<string, unknown>;

/** AWX's answer to `role_level` on a list whose objects are not guarded by roles (SPEC §21). */
export const ROLE_LEVEL_REFUSED = 'Cannot apply role_level filter to this list because its model does not use roles for access control.';

/** Query parameters that are never filters. */
export const RESERVED = new Set(['page', 'page_size', 'format', 'order', 'order_by', 'search', 'type', 'count_disabled', 'no_truncate', 'limit']);
export const LOOKUPS = new Set([
  'exact', 'iexact', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'regex', 'iregex', 'gt', 'gte', 'lt', 'lte', 'in', 'isnull',
]);

/** At most this many conditions (filters, each of their values, search terms) in one query string (SPEC §19). */
export const MAX_CONDITIONS = 200;
/** At most this many values in one `__in` list. */
export const MAX_IN_VALUES = 500;
/** At most this many fields in `order_by`. */
export const MAX_ORDER_FIELDS = 10;

/** Own properties only: `constructor`, `toString` and the like are names of no field (issue 28). */
export function hasOwn<V>(record: Record<string, V> | undefined, key: string): record is Record<string, V> {
  return record !== undefined && Object.hasOwn(record, key);
}
