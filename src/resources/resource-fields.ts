import { FieldInvalid, FieldRule, rules, Schema } from '../common/fields';

/** Longest text kept in a `text` column on MySQL (64 KiB) even when every character takes 4 bytes. */
export const TEXT_MAX = 16000;
/** Variables and extra vars live in MEDIUMTEXT on MySQL; the 1 MiB body limit is lower still. */
export const LARGE_TEXT_MAX = 262144;

/** Name and description, as every AWX resource has them (AWX's names are at most 512 characters). */
export const NAME_FIELDS: Schema = {
  name: { rule: rules.string({ max: 512 }), required: true },
  description: { rule: rules.string({ max: TEXT_MAX, blank: true }) },
};

/**
 * AWX's `variables`/`extra_vars`: a JSON or YAML dictionary kept as text. A dictionary sent as an
 * object is stored as JSON text; JSON text must be a dictionary. YAML text is stored as given: no
 * automation runs here to read it, and AWX itself keeps the text the user wrote.
 */
export function variablesRule(): FieldRule<string> {
  const text = rules.string({ max: LARGE_TEXT_MAX, blank: true });
  return (value) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) return text(JSON.stringify(value));
    const source = text(value);
    let parsed: unknown;
    try {
      parsed = JSON.parse(source);
    } catch {
      return source;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new FieldInvalid(`Input type \`${Array.isArray(parsed) ? 'list' : parsed === null ? 'null' : typeof parsed}\` is not a dictionary`);
    }
    return source;
  };
}
