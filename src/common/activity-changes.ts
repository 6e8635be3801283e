/** What a secret reads in an entry, old and new alike (SPEC §23, AWX). */
export const HIDDEN = 'hidden';

/**
 * A value as AWX's stream displays it: strings, booleans, numbers and null as they are, a date as ISO 8601, an
 * object or list as its JSON text.
 */
export function displayed(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return value;
}

/** The fields of an object as AWX's `model_to_dict` (a create or delete entry): each displayed, the hidden ones `"hidden"`. */
export function fieldsOf(values: Record<string, unknown>, hidden: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) out[key] = hidden.includes(key) ? HIDDEN : displayed(value);
  return out;
}

/**
 * AWX's `model_instance_diff` (an update entry): each field that changed as `[old, new]`, a hidden one as
 * `["hidden", "hidden"]`; `{}` when nothing changed (and then nothing is recorded).
 */
export function changesOf(before: Record<string, unknown>, after: Record<string, unknown>, hidden: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(after)) {
    const old = displayed(before[key]);
    const next = displayed(after[key]);
    if (old === next) continue;
    out[key] = hidden.includes(key) ? [HIDDEN, HIDDEN] : [old, next];
  }
  return out;
}

/** AWX's summary of a named object (`organization`, `team`, `credential`, `host`, `job_template`, `o_auth2_application`). */
export const namedSummary = (o: { id: number; name: string; description: string }) => ({ id: o.id, name: o.name, description: o.description });

/** AWX's summary of a user. */
export const userSummary = (u: { id: number; username: string; firstName: string; lastName: string }) => ({ id: u.id, username: u.username, first_name: u.firstName, last_name: u.lastName });
