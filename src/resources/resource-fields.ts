import { z } from 'zod';
import { refuse, text } from '../common/validation';

/** Longest text kept in a `text` column on MySQL (64 KiB) even when every character takes 4 bytes. */
export const TEXT_MAX = 16000;
/** Variables and extra vars live in MEDIUMTEXT on MySQL; the 1 MiB body limit is lower still. */
export const LARGE_TEXT_MAX = 262144;

/** Name and description, as every AWX resource has them (AWX's names are at most 512 characters). */
export const NAME_FIELDS = {
  name: text(512),
  description: text(TEXT_MAX, { blank: true }).optional(),
};

/** What JSON text holds, in Python's words as AWX reports it (`list`, `null`, `str`...). */
function jsonKind(parsed: unknown): string {
  return Array.isArray(parsed) ? 'list' : parsed === null ? 'null' : typeof parsed;
}

/**
 * AWX's `variables`/`extra_vars`: a JSON or YAML dictionary kept as text. A dictionary sent as an
 * object is stored as JSON text; JSON text must be a dictionary. YAML text is stored as given: no
 * automation runs here to read it, and AWX itself keeps the text the user wrote.
 */
export const variables = z.preprocess(
  (value) => (value && typeof value === 'object' && !Array.isArray(value) ? JSON.stringify(value) : value),
  text(LARGE_TEXT_MAX, { blank: true }).superRefine((source, ctx) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(source);
    } catch {
      return; // YAML, kept as written
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      refuse(ctx, `Input type \`${jsonKind(parsed)}\` is not a dictionary`, source);
    }
  }),
);
