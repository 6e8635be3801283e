import { z } from 'zod';
import { refuse } from '../common/validation';
import { SettingDefinition } from './setting-definition';

/** SPEC §22: AWX's `ui` category (the login notice and logo) and our click-through. */
export const UI = 'ui';

export const CUSTOM_LOGIN_INFO_MAX = 65536;
/** A logo fits §1's 1 MiB body limit with room for the rest of a write. */
export const CUSTOM_LOGO_MAX = 524288;

/** AWX's CustomLogoField (awx/conf/fields.py): its pattern and its two messages. */
const LOGO_PATTERN = /^data:image\/(?:png|jpeg|gif);base64,([A-Za-z0-9+/=]+?)$/;
const LOGO_FORMAT = 'Invalid format for custom logo. Must be a data URL with a base64-encoded GIF, PNG or JPEG image.';
const LOGO_BASE64 = 'Invalid base64-encoded data in data URL.';

/** What Python's `base64.b64decode(data, validate=True)` accepts of the pattern's alphabet: whole quads, `=` only at the end. */
export function decodesAsBase64(data: string): boolean {
  return data.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(data);
}

const logo = z
  .string()
  .max(CUSTOM_LOGO_MAX)
  .superRefine((value, ctx) => {
    if (value === '') return;
    const match = LOGO_PATTERN.exec(value);
    if (!match) refuse(ctx, LOGO_FORMAT, value);
    else if (!decodesAsBase64(match[1])) refuse(ctx, LOGO_BASE64, value);
  });

export const UI_SETTINGS: SettingDefinition[] = [
  { key: 'CUSTOM_LOGIN_INFO', category: UI, default: '', schema: z.string().max(CUSTOM_LOGIN_INFO_MAX) },
  { key: 'CUSTOM_LOGO', category: UI, default: '', schema: logo },
  { key: 'LOGIN_CONSENT_REQUIRED', category: UI, default: false, schema: z.boolean() },
];

/** A click-through needs a notice to click through. */
export const consentNeedsNotice = (next: Record<string, unknown>): Record<string, string[]> | undefined =>
  next.LOGIN_CONSENT_REQUIRED === true && next.CUSTOM_LOGIN_INFO === ''
    ? { LOGIN_CONSENT_REQUIRED: ['A login notice (CUSTOM_LOGIN_INFO) is required while the notice must be acknowledged.'] }
    : undefined;
