import { X509Certificate } from 'node:crypto';
import { z } from 'zod';
import { FilterParser } from 'ldapts';
import { integer, refuse } from '../common/validation';
import { SettingDefinition } from '../settings/setting-definition';
import { fillDnTemplate, fillFilter, isDn, USER_PLACEHOLDER } from './ldap-names';

/** AWX's directories: the default one, then `AUTH_LDAP_1_` … `AUTH_LDAP_5_` (SPEC §14), tried in this order. */
export const DIRECTORY_NAMES = ['default', '1', '2', '3', '4', '5'] as const;
export type DirectoryName = (typeof DIRECTORY_NAMES)[number];

export function settingPrefix(name: DirectoryName): string {
  return name === 'default' ? 'AUTH_LDAP_' : `AUTH_LDAP_${name}_`;
}

export const GROUP_TYPES = [
  'MemberDNGroupType',
  'NestedMemberDNGroupType',
  'GroupOfNamesType',
  'NestedGroupOfNamesType',
  'GroupOfUniqueNamesType',
  'NestedGroupOfUniqueNamesType',
  'PosixGroupType',
  'ActiveDirectoryGroupType',
  'NestedActiveDirectoryGroupType',
] as const;
export type GroupTypeName = (typeof GROUP_TYPES)[number];

export type SearchScope = 'SCOPE_BASE' | 'SCOPE_ONELEVEL' | 'SCOPE_SUBTREE';
export interface SearchSetting {
  base: string;
  scope: SearchScope;
  filter: string;
}

export interface ConnectionOptions {
  OPT_REFERRALS?: number;
  OPT_NETWORK_TIMEOUT?: number;
  OPT_TIMEOUT?: number;
}

export type UserField = 'first_name' | 'last_name' | 'email';
export type UserFlag = 'is_superuser' | 'is_system_auditor';

/** One directory's settings, read at the moment of a login (a change applies to the next attempt). */
export interface DirectoryConfig {
  name: DirectoryName;
  uris: string[];
  bindDn: string;
  bindPassword: string;
  startTls: boolean;
  connection: ConnectionOptions;
  userSearch: SearchSetting | null;
  userDnTemplate: string | null;
  attrMap: Partial<Record<UserField, string>>;
  groupSearch: SearchSetting | null;
  groupType: GroupTypeName;
  groupTypeParams: { member_attr?: string; name_attr?: string };
  requireGroup: string | null;
  denyGroup: string | null;
  flagsByGroup: Partial<Record<UserFlag, string[]>>;
  caCert: string;
}

const SCOPES = ['SCOPE_BASE', 'SCOPE_ONELEVEL', 'SCOPE_SUBTREE'] as const;
/** An attribute name (RFC 4512 descr) or an OID. */
const ATTRIBUTE = /^([A-Za-z][A-Za-z0-9-]*|\d+(\.\d+)+)$/;

/** Splits `SERVER_URI` as python-ldap does: spaces or commas between URIs. */
export function splitUris(value: string): string[] {
  return value.split(/[\s,]+/).filter(Boolean);
}

function uriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `"${uri}" is not a valid URI.`;
  }
  if (url.protocol !== 'ldap:' && url.protocol !== 'ldaps:') return `"${uri}": the scheme must be ldap:// or ldaps://.`;
  if (!url.hostname) return `"${uri}": a host is required.`;
  if ((url.pathname && url.pathname !== '/') || url.search || url.hash || url.username || url.password) {
    return `"${uri}": only scheme, host and port are allowed.`;
  }
  return undefined;
}

const serverUri = z
  .string()
  .max(4096)
  .transform((value, ctx) => {
    const uris = splitUris(value);
    for (const uri of uris) {
      const problem = uriProblem(uri);
      if (problem) {
        refuse(ctx, problem, value);
        return z.NEVER;
      }
    }
    return uris.join(' ');
  });

/** A DN, or blank (no bind DN: an anonymous search). */
const dnOrBlank = z
  .string()
  .max(1024)
  .transform((value) => value.trim())
  .refine((value) => value === '' || isDn(value), 'Enter a valid DN (e.g. "cn=admin,dc=example,dc=org").');

/** A DN or null; "" reads as null, as AWX's forms send it. */
const dnOrNull = z.preprocess(
  (value) => (value === '' ? null : value),
  z.union([z.null(), z.string().max(1024).transform((value) => value.trim()).refine(isDn, 'Enter a valid DN (e.g. "cn=admins,ou=groups,dc=example,dc=org").')]),
);

function filterProblem(filter: string): string | undefined {
  try {
    FilterParser.parseString(filter);
    return undefined;
  } catch (err) {
    return `Invalid filter "${filter}": ${(err as Error).message}`;
  }
}

/** Filters are written with or without their outer parentheses (python-ldap takes both). */
function wrapFilter(filter: string): string {
  const trimmed = filter.trim();
  return trimmed.startsWith('(') ? trimmed : `(${trimmed})`;
}

/** `[base, scope, filter]`, or `[]` (none); the user search's filter must contain %(user)s. */
function search(kind: 'user' | 'group') {
  return z.array(z.unknown()).max(3).transform((value, ctx): SearchSetting | null => {
    if (value.length === 0) return null;
    const [base, scope, filter] = value;
    if (value.length !== 3 || typeof base !== 'string' || typeof scope !== 'string' || typeof filter !== 'string') {
      refuse(ctx, 'Expected [base DN, scope, filter] (three strings), or [] for none.', value);
      return z.NEVER;
    }
    if (!isDn(base)) {
      refuse(ctx, `Invalid base DN "${base}".`, value);
      return z.NEVER;
    }
    if (!(SCOPES as readonly string[]).includes(scope)) {
      refuse(ctx, `Invalid scope "${scope}": one of ${SCOPES.join(', ')}.`, value);
      return z.NEVER;
    }
    if (kind === 'user' && !filter.includes(USER_PLACEHOLDER)) {
      refuse(ctx, `The user search filter must contain ${USER_PLACEHOLDER}.`, value);
      return z.NEVER;
    }
    const wrapped = wrapFilter(filter);
    const problem = filterProblem(kind === 'user' ? fillFilter(wrapped, 'user') : wrapped);
    if (problem) {
      refuse(ctx, problem, value);
      return z.NEVER;
    }
    return { base: base.trim(), scope: scope as SearchScope, filter: wrapped };
  });
}

/** Stored as AWX shows it, `[base, scope, filter]`; read back into a SearchSetting. */
function searchAsList(value: SearchSetting | null): string[] {
  return value ? [value.base, value.scope, value.filter] : [];
}

const dnTemplate = z.preprocess(
  (value) => (value === '' ? null : value),
  z.union([
    z.null(),
    z
      .string()
      .max(1024)
      .transform((value) => value.trim())
      .superRefine((value, ctx) => {
        if (!value.includes(USER_PLACEHOLDER)) refuse(ctx, `The template must contain ${USER_PLACEHOLDER}.`, value);
        else if (!isDn(fillDnTemplate(value, 'user'))) refuse(ctx, 'The template is not a valid DN.', value);
      }),
  ]),
);

const attribute = z.string().max(256).refine((value) => ATTRIBUTE.test(value), 'Enter an LDAP attribute name.');

const attrMap = z.strictObject({ first_name: attribute.optional(), last_name: attribute.optional(), email: attribute.optional() });

const dnList = z.preprocess(
  (value) => (typeof value === 'string' ? [value] : value),
  z.array(z.string().max(1024).refine(isDn, 'Enter a valid DN.')).max(100),
);
const flagsByGroup = z.strictObject({ is_superuser: dnList.optional(), is_system_auditor: dnList.optional() });

const connectionOptions = z.strictObject(
  {
    OPT_REFERRALS: z.union([z.literal(0), z.literal(1), z.boolean().transform((b) => (b ? 1 : 0))]).optional(),
    OPT_NETWORK_TIMEOUT: z.number().positive().max(600).optional(),
    OPT_TIMEOUT: z.number().positive().max(600).optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `Unsupported option(s): ${issue.keys.join(', ')} (known: OPT_REFERRALS, OPT_NETWORK_TIMEOUT, OPT_TIMEOUT; for TLS trust use CA_CERT).` : undefined) },
);

const groupTypeParams = z.strictObject({ member_attr: attribute.optional(), name_attr: attribute.optional() });

/** PEM certificates (one or more), each a parseable X.509 certificate; or blank. */
const caCert = z
  .string()
  .max(65536)
  .transform((value) => value.trim())
  .superRefine((value, ctx) => {
    if (!value) return;
    const blocks = value.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    if (!blocks.length) return refuse(ctx, 'Invalid certificate (expected one or more PEM X.509 certificates).', value);
    for (const block of blocks) {
      try {
        new X509Certificate(block);
      } catch {
        return refuse(ctx, 'Invalid certificate (expected one or more PEM X.509 certificates).', value);
      }
    }
  });

export const CONNECTION_DEFAULT: ConnectionOptions = { OPT_REFERRALS: 0, OPT_NETWORK_TIMEOUT: 30 };
export const ATTR_MAP_DEFAULT = { first_name: 'givenName', last_name: 'sn', email: 'mail' };
export const GROUP_TYPE_PARAMS_DEFAULT = { member_attr: 'member', name_attr: 'cn' };

/** One directory's keys, AWX's names and defaults (SPEC §14), plus CA_CERT. */
function directoryDefinitions(name: DirectoryName): SettingDefinition[] {
  const p = settingPrefix(name);
  const key = (suffix: string) => `${p}${suffix}`;
  return [
    { key: key('SERVER_URI'), category: 'ldap', default: '', schema: serverUri },
    { key: key('BIND_DN'), category: 'ldap', default: '', schema: dnOrBlank },
    { key: key('BIND_PASSWORD'), category: 'ldap', default: '', secret: true, schema: z.string().max(1024) },
    { key: key('START_TLS'), category: 'ldap', default: false, schema: z.boolean() },
    { key: key('CONNECTION_OPTIONS'), category: 'ldap', default: CONNECTION_DEFAULT, schema: connectionOptions },
    { key: key('USER_SEARCH'), category: 'ldap', default: [], schema: search('user').transform(searchAsList) },
    { key: key('USER_DN_TEMPLATE'), category: 'ldap', default: null, schema: dnTemplate },
    { key: key('USER_ATTR_MAP'), category: 'ldap', default: ATTR_MAP_DEFAULT, schema: attrMap },
    { key: key('GROUP_SEARCH'), category: 'ldap', default: [], schema: search('group').transform(searchAsList) },
    { key: key('GROUP_TYPE'), category: 'ldap', default: 'MemberDNGroupType', schema: z.enum(GROUP_TYPES) },
    { key: key('GROUP_TYPE_PARAMS'), category: 'ldap', default: GROUP_TYPE_PARAMS_DEFAULT, schema: groupTypeParams },
    { key: key('REQUIRE_GROUP'), category: 'ldap', default: null, schema: dnOrNull },
    { key: key('DENY_GROUP'), category: 'ldap', default: null, schema: dnOrNull },
    { key: key('USER_FLAGS_BY_GROUP'), category: 'ldap', default: {}, schema: flagsByGroup },
    { key: key('CA_CERT'), category: 'ldap', default: '', schema: caCert },
  ] as SettingDefinition[];
}

/** Every LDAP setting: six directories in the `ldap` category, the basic-auth re-check period in `authentication`. */
export function ldapSettingDefinitions(): SettingDefinition[] {
  return [
    ...DIRECTORY_NAMES.flatMap(directoryDefinitions),
    // SPEC §14: how long a repeat of an LDAP user's basic credentials is trusted before the directory is asked again.
    { key: 'AUTH_LDAP_CACHE_SECONDS', category: 'authentication', default: 60, schema: integer(0, 86400) },
  ];
}

/** Reads one directory's settings (`get` is SettingsService.get). */
export function directoryConfig(name: DirectoryName, get: (key: string) => unknown): DirectoryConfig {
  const p = settingPrefix(name);
  const read = <T>(suffix: string) => get(`${p}${suffix}`) as T;
  const asSearch = (list: string[]): SearchSetting | null => (list.length === 3 ? { base: list[0], scope: list[1] as SearchScope, filter: list[2] } : null);
  return {
    name,
    uris: splitUris(read<string>('SERVER_URI')),
    bindDn: read<string>('BIND_DN'),
    bindPassword: read<string>('BIND_PASSWORD'),
    startTls: read<boolean>('START_TLS'),
    connection: read<ConnectionOptions>('CONNECTION_OPTIONS'),
    userSearch: asSearch(read<string[]>('USER_SEARCH')),
    userDnTemplate: read<string | null>('USER_DN_TEMPLATE') || null,
    attrMap: read<Partial<Record<UserField, string>>>('USER_ATTR_MAP'),
    groupSearch: asSearch(read<string[]>('GROUP_SEARCH')),
    groupType: read<GroupTypeName>('GROUP_TYPE'),
    groupTypeParams: read<{ member_attr?: string; name_attr?: string }>('GROUP_TYPE_PARAMS'),
    requireGroup: read<string | null>('REQUIRE_GROUP'),
    denyGroup: read<string | null>('DENY_GROUP'),
    flagsByGroup: read<Partial<Record<UserFlag, string[]>>>('USER_FLAGS_BY_GROUP'),
    caCert: read<string>('CA_CERT'),
  };
}
