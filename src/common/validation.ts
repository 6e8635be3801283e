import { z } from 'zod';
import { FieldErrors } from './errors';

/**
 * The one validation layer: request bodies and setting values are zod schemas, and this module turns
 * a failed parse into the 400 an AWX client knows, Django REST Framework's `{"field": ["message"]}`
 * with DRF's wording (SPEC §1). Features declare their schemas next to their routes; unknown fields
 * are dropped (DRF ignores them) and PATCH parses the partial schema.
 */

export const REQUIRED = 'This field is required.';
const BLANK = 'This field may not be blank.';
const INTEGER_REQUIRED = 'A valid integer is required.';

/** DRF's wording for a value of the wrong type, by the type the schema expected. */
function wrongType(expected: string, input: unknown): string {
  switch (expected) {
    case 'string':
      return 'Not a valid string.';
    case 'boolean':
      return 'Must be a valid boolean.';
    case 'number':
    case 'int':
      return INTEGER_REQUIRED;
    case 'object':
    case 'record':
      return 'Expected a dictionary of items.';
    case 'array':
      return `Expected a list of items but got type "${typeof input}".`;
    default:
      return 'Invalid value.';
  }
}

/** A value as text, as JavaScript writes it; a JSON object with its own `toString` key cannot break it. */
function shown(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** The error map given to every parse: each zod issue in DRF's words. A schema's own message wins. */
function drfMessage(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? REQUIRED : wrongType(issue.expected, issue.input);
    case 'invalid_value':
      return issue.input === undefined ? REQUIRED : `"${shown(issue.input)}" is not a valid choice.`;
    case 'too_big':
      if (issue.origin === 'string') return `Ensure this field has no more than ${issue.maximum} characters.`;
      if (issue.origin === 'array') return `Ensure this field has no more than ${issue.maximum} elements.`;
      return `Ensure this value is less than or equal to ${issue.maximum}.`;
    case 'too_small':
      if (issue.origin === 'string') return `Ensure this field has at least ${issue.minimum} characters.`;
      if (issue.origin === 'array') return `Ensure this field has at least ${issue.minimum} elements.`;
      return `Ensure this value is greater than or equal to ${issue.minimum}.`;
    case 'unrecognized_keys':
      return `Invalid key names: ${issue.keys.join(', ')}`;
    case 'invalid_key':
      return issue.issues[0]?.message ?? 'Invalid value.';
    default:
      return 'Invalid value.';
  }
}

/** DRF's CharField: a string of at most `max` characters, not blank unless `blank` (allow_blank). */
export function text(max: number, opts: { blank?: boolean } = {}) {
  const string = z.string();
  return (opts.blank ? string : string.refine((s) => s.trim() !== '', { error: BLANK, abort: true })).max(max);
}

/** DRF's IntegerField: the type is checked before the bounds, whatever the size of the number. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return z.number().refine(Number.isInteger, { error: INTEGER_REQUIRED, abort: true }).min(min).max(max);
}

/** A related object's id (DRF's PrimaryKeyRelatedField) or null. */
export const pkOrNull = z.custom<number | null>(
  (value) => value === null || (typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 2147483647),
  { error: (issue) => `Incorrect type. Expected pk value, received ${typeof issue.input}.` },
);

/**
 * Where in the value an issue is, as a message prefix (`corp: issuer: ...`); list positions are not
 * named. Issues about a key itself (`invalid_key`) are placed on the object holding the key.
 */
function located(issue: z.core.$ZodIssue, path: readonly PropertyKey[]): string {
  const at = (issue.code === 'invalid_key' ? path.slice(0, -1) : path).filter((p) => typeof p === 'string');
  return [...at, issue.message].join(': ');
}

/**
 * Issues in the order the value is read, except that an object's unknown keys come before anything
 * about its fields, as they always were checked first. Zod reports an object's field issues together
 * and its unknown keys right after them, so that report moves to the head of the run before it.
 */
function ordered(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const out: z.core.$ZodIssue[] = [];
  for (const issue of issues) {
    let at = out.length;
    const inside = (other: z.core.$ZodIssue) => issue.path.every((p, i) => other.path[i] === p);
    if (issue.code === 'unrecognized_keys') while (at > 0 && inside(out[at - 1])) at--;
    out.splice(at, 0, issue);
  }
  return out;
}

/** The first issue of each field, in the schema's field order. */
function fieldErrors(error: z.ZodError, field?: string): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of ordered(error.issues)) {
    const [name, rest] = field === undefined ? [String(issue.path[0] ?? 'non_field_errors'), issue.path.slice(1)] : [field, issue.path];
    errors[name] ??= [located(issue, rest)];
  }
  return errors;
}

const partials = new WeakMap<z.ZodObject, z.ZodObject>();

function partialOf<S extends z.ZodObject>(schema: S): S {
  let partial = partials.get(schema);
  if (!partial) partials.set(schema, (partial = schema.partial()));
  return partial as S;
}

/**
 * A JSON request body against its schema: the parsed body, or a 400 naming every bad field. `partial`
 * (PATCH) lets any field be left out. Anything but a JSON object is DRF's `non_field_errors`.
 */
export function validateBody<S extends z.ZodObject>(schema: S, body: unknown): z.output<S>;
export function validateBody<S extends z.ZodObject>(schema: S, body: unknown, opts: { partial: boolean }): Partial<z.output<S>>;
export function validateBody<S extends z.ZodObject>(schema: S, body: unknown, opts: { partial?: boolean } = {}): z.output<S> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new FieldErrors({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${Array.isArray(body) ? 'list' : typeof body}.`] });
  }
  const result = (opts.partial ? partialOf(schema) : schema).safeParse(body, { error: drfMessage });
  if (!result.success) throw new FieldErrors(fieldErrors(result.error));
  return result.data as z.output<S>;
}

/** One value (a setting) against its schema: the parsed value, or a 400 `{"<field>": ["message"]}`. */
export function validateValue<S extends z.ZodType>(schema: S, value: unknown, field: string): z.output<S> {
  const result = schema.safeParse(value, { error: drfMessage });
  if (!result.success) throw new FieldErrors(fieldErrors(result.error, field));
  return result.data;
}

/** Adds an issue from inside a refinement or transform; the DRF message is the schema's own. */
export function refuse(ctx: z.RefinementCtx, message: string, input?: unknown): void {
  ctx.addIssue({ code: 'custom', message, input });
}
