import { isIP } from 'node:net';
import { z } from 'zod';
import { HOST_NAME, integer, refuse } from '../common/validation';
import type { CategoryCheck, CategoryDerivation } from '../settings/settings.service';
import type { SettingDefinition } from '../settings/setting-definition';

export const RADIUS_CATEGORY = 'radius';

/** The attributes a flag may be read from (SPEC §20): text the server sends back for the user's role. */
export const FLAG_ATTRIBUTES = ['Class', 'Filter-Id'] as const;
export type FlagAttribute = (typeof FLAG_ATTRIBUTES)[number];
export const RADIUS_FLAGS = ['is_superuser', 'is_system_auditor'] as const;
export type RadiusFlag = (typeof RADIUS_FLAGS)[number];

/** `RADIUS_USER_FLAGS_BY_ATTR` as stored: per flag an attribute and the values that set it. */
export type FlagsByAttribute = Partial<Record<`${RadiusFlag}_attr`, FlagAttribute> & Record<`${RadiusFlag}_value`, string[]>>;

/** The settings a login reads, at the moment of the login (a change applies to the next attempt). */
export interface RadiusConfig {
  /** `""`: RADIUS is off. */
  server: string;
  port: number;
  secret: string;
  timeoutMs: number;
  retries: number;
  nasIdentifier: string;
  cacheSeconds: number;
  flags: FlagsByAttribute;
}

const octets = (value: string) => Buffer.byteLength(value, 'utf8');

/** What is wrong with a RADIUS_SERVER value, in words naming the mistake (AWX's forms take a bare host). */
function serverProblem(value: string): string | undefined {
  if (/\s/.test(value)) return 'Enter a host name or IP address without spaces.';
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)) return 'Enter a host name or IP address without a scheme (no "radius://").';
  if (isIP(value)) return undefined;
  if (/^\[.*\]/.test(value) || /:\d*$/.test(value)) return 'Enter the host without a port: the port is RADIUS_PORT.';
  return HOST_NAME.test(value) ? undefined : 'Enter a valid host name or IP address.';
}

const server = z
  .string()
  .max(255)
  .superRefine((value, ctx) => {
    const problem = value === '' ? undefined : serverProblem(value);
    if (problem) refuse(ctx, problem, value);
  });

/** RADIUS_SECRET: any text but a NUL (which no form can type, and which would end the secret in C servers). */
const secret = z
  .string()
  .max(1024)
  .refine((value) => !value.includes('\u0000'), 'The shared secret may not contain a NUL character.');

const nasIdentifier = z
  .string()
  .refine((value) => octets(value) >= 1 && octets(value) <= 253, 'Enter 1 to 253 octets (RFC 2865 §5.32).');

/** A value a flag attribute must equal: a string is a one-item list (as LDAP's flag groups). */
const flagValues = z.preprocess(
  (value) => (typeof value === 'string' ? [value] : value),
  z.array(z.string().refine((value) => octets(value) >= 1 && octets(value) <= 253, 'Each value is 1 to 253 octets (an attribute holds no more).')).max(100),
);
/** `""` and null read as "no attribute": the flag is then left as it is. */
const flagAttribute = z.preprocess((value) => (value === '' || value === null ? undefined : value), z.enum(FLAG_ATTRIBUTES).optional());

const flagsByAttribute = z.strictObject({
  is_superuser_attr: flagAttribute,
  is_superuser_value: flagValues.optional(),
  is_system_auditor_attr: flagAttribute,
  is_system_auditor_value: flagValues.optional(),
});

/**
 * The address (`RADIUS_SERVER`:`RADIUS_PORT`, the host as typed in lower case) the stored secret was typed with,
 * kept in the database beside it (a hidden setting: every node and a restart agree) so that turning RADIUS off
 * and on again elsewhere cannot carry the secret to the new address (SPEC §20). `null`: typed with RADIUS off,
 * or never: the next server needs the secret in clear.
 */
const SECRET_ADDRESS = 'RADIUS_SECRET_ADDRESS';
const secretAddress = z.strictObject({ server: z.string(), port: z.number() }).nullable();
type SecretAddress = z.infer<typeof secretAddress>;
type Address = NonNullable<SecretAddress>;

/** AWX's keys (RADIUS_SERVER, RADIUS_PORT, RADIUS_SECRET) and ours, in the `radius` category (SPEC §20). */
export function radiusSettingDefinitions(): SettingDefinition[] {
  const category = RADIUS_CATEGORY;
  return [
    { key: 'RADIUS_SERVER', category, default: '', schema: server },
    { key: 'RADIUS_PORT', category, default: 1812, schema: integer(1, 65535) },
    { key: 'RADIUS_SECRET', category, default: '', secret: true, schema: secret },
    { key: 'RADIUS_TIMEOUT', category, default: 5, schema: integer(1, 60) },
    { key: 'RADIUS_RETRIES', category, default: 2, schema: integer(0, 10) },
    { key: 'RADIUS_NAS_IDENTIFIER', category, default: 'awx', schema: nasIdentifier },
    { key: 'RADIUS_CACHE_SECONDS', category, default: 60, schema: integer(0, 86400) },
    { key: 'RADIUS_USER_FLAGS_BY_ATTR', category, default: {}, schema: flagsByAttribute },
    // No stored row (a database from before issue 56): the configured server's address, as the rule was then.
    { key: SECRET_ADDRESS, category, default: undefined, hidden: true, schema: secretAddress },
  ] as SettingDefinition[];
}

/** The address a write leaves, compared as RADIUS_SERVER compares (host names ignore case). */
const addressOf = (next: Record<string, unknown>): Address => ({ server: String(next.RADIUS_SERVER ?? '').toLowerCase(), port: Number(next.RADIUS_PORT) });

/** Where the stored secret may go: the address it was typed with (`get` reads the stored settings). */
function secretBoundTo(get: (key: string) => unknown): SecretAddress {
  const stored = get(SECRET_ADDRESS) as SecretAddress | undefined;
  if (stored !== undefined) return stored;
  const server = String(get('RADIUS_SERVER'));
  return server === '' ? null : addressOf({ RADIUS_SERVER: server, RADIUS_PORT: get('RADIUS_PORT') });
}

/**
 * The rules that span keys (SPEC §20): a server needs a secret (RFC 2865 §3: it MUST NOT be empty), and a
 * write that leaves a server at another address than the one the stored secret was typed with needs the
 * secret in clear in the same write, also when RADIUS was off in between: the stored one is never sent
 * towards a new address (as §7 for identity providers). Turning RADIUS off needs nothing.
 */
export function radiusSettingsCheck(get: (key: string) => unknown): CategoryCheck {
  return (next, typed) => {
    const server = String(next.RADIUS_SERVER ?? '');
    if (server === '') return undefined;
    if (String(next.RADIUS_SECRET ?? '') === '') return { RADIUS_SECRET: ['A RADIUS server needs its shared secret (RFC 2865 §3: the secret must not be empty).'] };
    const bound = secretBoundTo(get);
    const here = addressOf(next);
    const moved = bound === null || bound.server !== here.server || bound.port !== here.port;
    if (moved && !typed.has('RADIUS_SECRET')) {
      return { RADIUS_SECRET: ['The server address changed, so the stored secret is not kept: send the shared secret for the new address.'] };
    }
    return undefined;
  };
}

/**
 * What a write that passed the check ties the secret to: the address it leaves while a server is set (the
 * secret was typed for it, or it is where the secret was already bound); a secret typed while RADIUS is off
 * belongs to no address. Otherwise the binding stays as stored.
 */
export function radiusSecretAddress(get: (key: string) => unknown): CategoryDerivation {
  return (next, typed) => {
    if (String(next.RADIUS_SERVER ?? '') !== '') return { [SECRET_ADDRESS]: addressOf(next) };
    if (typed.has('RADIUS_SECRET')) return { [SECRET_ADDRESS]: null };
    const stored = get(SECRET_ADDRESS);
    // Turning off a server configured before the binding was stored: remember where its secret belongs.
    return stored === undefined ? { [SECRET_ADDRESS]: secretBoundTo(get) } : undefined;
  };
}

/** The settings as a login reads them (`get` is SettingsService.get). */
export function radiusConfig(get: (key: string) => unknown): RadiusConfig {
  return {
    server: get('RADIUS_SERVER') as string,
    port: get('RADIUS_PORT') as number,
    secret: get('RADIUS_SECRET') as string,
    timeoutMs: (get('RADIUS_TIMEOUT') as number) * 1000,
    retries: get('RADIUS_RETRIES') as number,
    nasIdentifier: get('RADIUS_NAS_IDENTIFIER') as string,
    cacheSeconds: get('RADIUS_CACHE_SECONDS') as number,
    flags: get('RADIUS_USER_FLAGS_BY_ATTR') as FlagsByAttribute,
  };
}
