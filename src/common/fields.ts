import { FieldErrors } from './errors';

/** A field rule: returns the cleaned value or throws a message string. */
export type FieldRule<T> = (value: unknown) => T;

export class FieldInvalid extends Error {}

/** DRF's wording, so AWX clients see the messages they know. */
export const rules = {
  string(opts: { max?: number; min?: number; blank?: boolean } = {}): FieldRule<string> {
    return (value) => {
      if (typeof value !== 'string') throw new FieldInvalid('Not a valid string.');
      if (!opts.blank && value.trim() === '') throw new FieldInvalid('This field may not be blank.');
      if (opts.max !== undefined && value.length > opts.max) {
        throw new FieldInvalid(`Ensure this field has no more than ${opts.max} characters.`);
      }
      return value;
    };
  },
  bool(): FieldRule<boolean> {
    return (value) => {
      if (typeof value === 'boolean') return value;
      throw new FieldInvalid('Must be a valid boolean.');
    };
  },
  intOrNull(): FieldRule<number | null> {
    return (value) => {
      if (value === null) return null;
      if (typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 2147483647) return value;
      throw new FieldInvalid('Incorrect type. Expected pk value, received ' + typeof value + '.');
    };
  },
  object(): FieldRule<Record<string, unknown>> {
    return (value) => {
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
      throw new FieldInvalid('Expected a dictionary of items.');
    };
  },
  choice<T extends string>(choices: readonly T[]): FieldRule<T> {
    return (value) => {
      if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
      throw new FieldInvalid(`"${String(value)}" is not a valid choice.`);
    };
  },
};

export type Schema = Record<string, { rule: FieldRule<unknown>; required?: boolean }>;

/**
 * Validates a JSON body against a schema. Unknown fields are ignored (DRF); `partial` skips the
 * required check (PATCH). All errors are collected and thrown together as a 400.
 */
export function parseBody<T = Record<string, unknown>>(body: unknown, schema: Schema, partial = false): Partial<T> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new FieldErrors({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${Array.isArray(body) ? 'list' : typeof body}.`] });
  }
  const input = body as Record<string, unknown>;
  const errors: Record<string, string[]> = {};
  const out: Record<string, unknown> = {};
  for (const [field, { rule, required }] of Object.entries(schema)) {
    if (!(field in input) || input[field] === undefined) {
      if (required && !partial) errors[field] = ['This field is required.'];
      continue;
    }
    try {
      out[field] = rule(input[field]);
    } catch (e) {
      if (!(e instanceof FieldInvalid)) throw e;
      errors[field] = [e.message];
    }
  }
  if (Object.keys(errors).length) throw new FieldErrors(errors);
  return out as Partial<T>;
}
