/** Raised by a validator; becomes `{"KEY": ["message"]}` with 400. */
export class SettingInvalid extends Error {}

export interface SettingDefinition<T = unknown> {
  key: string;
  /** Category slug of `/api/v2/settings/<slug>/`. */
  category: string;
  default: T;
  validate: (value: unknown) => T;
  /** Write-only: stored encrypted, read back as "$encrypted$". */
  secret?: boolean;
  /** Computed, shown but not writable. */
  readOnly?: boolean;
}

export const ENCRYPTED_PLACEHOLDER = '$encrypted$';

export const validators = {
  bool(value: unknown): boolean {
    if (typeof value === 'boolean') return value;
    throw new SettingInvalid('Must be a valid boolean.');
  },
  int(min: number, max = Number.MAX_SAFE_INTEGER) {
    return (value: unknown): number => {
      if (typeof value !== 'number' || !Number.isInteger(value)) throw new SettingInvalid('A valid integer is required.');
      if (value < min) throw new SettingInvalid(`Ensure this value is greater than or equal to ${min}.`);
      if (value > max) throw new SettingInvalid(`Ensure this value is less than or equal to ${max}.`);
      return value;
    };
  },
  /** -1 (no limit) or at least 1: a limit of 0 would end every session, the new one included. */
  limit(value: unknown): number {
    const n = validators.int(-1)(value);
    if (n === 0) throw new SettingInvalid('Use -1 for no limit, or a value of at least 1.');
    return n;
  },
  string(maxLength = 1024) {
    return (value: unknown): string => {
      if (typeof value !== 'string') throw new SettingInvalid('Not a valid string.');
      if (value.length > maxLength) throw new SettingInvalid(`Ensure this field has no more than ${maxLength} characters.`);
      return value;
    };
  },
  /** An absolute http(s) URL or a path starting with "/", or blank. */
  urlOrBlank(value: unknown): string {
    const s = validators.string(1024)(value).trim();
    if (s === '' || (s.startsWith('/') && !s.startsWith('//'))) return s;
    try {
      const u = new URL(s);
      if (u.protocol === 'http:' || u.protocol === 'https:') return s;
    } catch {
      /* fall through */
    }
    throw new SettingInvalid('Enter a valid URL.');
  },
  origins(value: unknown): string[] {
    if (!Array.isArray(value)) throw new SettingInvalid('Expected a list of items but got type "' + typeof value + '".');
    return value.map((item) => {
      if (typeof item !== 'string') throw new SettingInvalid('Not a valid string.');
      let u: URL;
      try {
        u = new URL(item);
      } catch {
        throw new SettingInvalid(`"${item}" is not a valid origin (scheme://host[:port]).`);
      }
      if ((u.protocol !== 'http:' && u.protocol !== 'https:') || (u.pathname !== '/' && u.pathname !== '') || u.search || u.hash) {
        throw new SettingInvalid(`"${item}" is not a valid origin (scheme://host[:port]).`);
      }
      return u.origin;
    });
  },
};
