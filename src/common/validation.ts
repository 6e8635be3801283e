import { z } from 'zod';
import { ErrorTree, FieldErrors } from './errors';

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

/**
 * How a setting's errors are shown: `nested` as DRF nests the errors of AWX's dict and list fields (a key the
 * shape does not name is `["Invalid field."]` at its place, SPEC §21); `path`, each message after the
 * place it is about, written as the dry run writes paths (`AUTHENTICATION_MAPS[3].triggers.groups.has_or: …`).
 * Unmarked schemas keep the first message of the field, its dict keys as a prefix.
 */
export type ErrorShape = 'nested' | 'path';
const errorShapes = new WeakMap<z.ZodType, ErrorShape>();

export function reportErrors<S extends z.ZodType>(schema: S, shape: ErrorShape): S {
  errorShapes.set(schema, shape);
  return schema;
}

/** AWX's `_Forbidden` child field: what a key the shape does not name is told. */
export const INVALID_FIELD = 'Invalid field.';

/** Each issue's places: an unknown-keys report is one place per key. */
function places(issue: z.core.$ZodIssue): { path: PropertyKey[]; message: string }[] {
  if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: [...issue.path, key], message: INVALID_FIELD }));
  return [{ path: [...issue.path], message: issue.message }];
}

/** DRF's nesting: the first message at each place; a place that has messages takes nothing below it. */
function errorTree(error: z.ZodError): ErrorTree {
  const all = ordered(error.issues).flatMap(places);
  const top = all.find((place) => place.path.length === 0);
  if (top) return [top.message];
  const root: Record<string, ErrorTree> = {};
  for (const { path, message } of all) placeMessage(root, path.map(String), message);
  return root;
}

function placeMessage(node: Record<string, ErrorTree>, [part, ...rest]: string[], message: string): void {
  const here = node[part];
  if (!rest.length) {
    node[part] ??= [message];
    return;
  }
  if (Array.isArray(here)) return;
  placeMessage((node[part] = here ?? {}), rest, message);
}

/** `KEY[3].triggers.groups.has_or`; a key that is no identifier is quoted (`KEY["Ops team"]`). */
export function pathText(field: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, part) => {
    if (typeof part === 'number') return `${text}[${part}]`;
    const name = String(part);
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `${text}.${name}` : `${text}[${JSON.stringify(name)}]`;
  }, field);
}

/** Every message once, after the path of its place. */
function pathMessages(error: z.ZodError, field: string): string[] {
  const messages = ordered(error.issues)
    .flatMap(places)
    .map(({ path, message }) => (path.length ? `${pathText(field, path)}: ${message}` : message));
  return [...new Set(messages)];
}

/** One value (a setting) against its schema: the parsed value, or a 400 `{"<field>": ["message"]}`. */
export function validateValue<S extends z.ZodType>(schema: S, value: unknown, field: string): z.output<S> {
  const result = schema.safeParse(value, { error: drfMessage });
  if (result.success) return result.data;
  const shape = errorShapes.get(schema);
  if (shape === 'nested') throw new FieldErrors({ [field]: errorTree(result.error) });
  if (shape === 'path') throw new FieldErrors({ [field]: pathMessages(result.error, field) });
  throw new FieldErrors(fieldErrors(result.error, field));
}

/** Adds an issue from inside a refinement or transform; the DRF message is the schema's own. */
export function refuse(ctx: z.RefinementCtx, message: string, input?: unknown): void {
  ctx.addIssue({ code: 'custom', message, input });
}

/** A DNS host name (RFC 1123 labels, at most 253 characters); an IP address is checked apart (`node:net` isIP). */
export const HOST_NAME = /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
