import { createPrivateKey, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { SettingDefinition, SettingInvalid, validators as v } from '../settings/setting-definition';

/** One OpenID Connect provider of `SOCIAL_AUTH_OIDC_PROVIDERS` (SPEC §7), defaults filled in. */
export interface OidcProviderConfig {
  issuer: string;
  client_id: string;
  client_secret: string;
  scopes: string;
  attr_username: string;
  attr_email: string;
  attr_first_name: string;
  attr_last_name: string;
}

/** One IdP of `SOCIAL_AUTH_SAML_ENABLED_IDPS` (AWX's keys), defaults filled in. */
export interface SamlIdpConfig {
  entity_id: string;
  url: string;
  x509cert: string;
  attr_user_permanent_id: string;
  attr_username: string;
  attr_email: string;
  attr_first_name: string;
  attr_last_name: string;
}

export interface SamlUserFlags {
  is_superuser_attr?: string;
  is_superuser_value?: string[];
  is_system_auditor_attr?: string;
  is_system_auditor_value?: string[];
}

const OIDC_DEFAULTS = {
  client_secret: '',
  scopes: 'openid profile email',
  attr_username: 'preferred_username',
  attr_email: 'email',
  attr_first_name: 'given_name',
  attr_last_name: 'family_name',
};

/** python-social-auth's SAML defaults, as AWX documents them ("name_id" = the Subject's NameID). */
const SAML_DEFAULTS = {
  attr_user_permanent_id: 'name_id',
  attr_username: 'urn:oid:0.9.2342.19200300.100.1.1',
  attr_email: 'urn:oid:0.9.2342.19200300.100.1.3',
  attr_first_name: 'urn:oid:2.5.4.42',
  attr_last_name: 'urn:oid:2.5.4.4',
};

/** Provider names appear in URLs (`?idp=<name>`) and in `oidc:<name>` keys. */
const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function dictionary(value: unknown): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new SettingInvalid('Expected a dictionary of items.');
  return value as Record<string, unknown>;
}

/** Validates every entry of a `{"<name>": {...}}` map; a message names the provider and the field. */
function providerMap<T>(value: unknown, entry: (raw: Record<string, unknown>) => T): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [name, raw] of Object.entries(dictionary(value))) {
    if (!PROVIDER_NAME.test(name)) {
      throw new SettingInvalid(`"${name}" is not a valid provider name (letters, digits, "_", "." and "-", at most 64).`);
    }
    try {
      out[name] = entry(dictionary(raw));
    } catch (e) {
      if (!(e instanceof SettingInvalid)) throw e;
      throw new SettingInvalid(`${name}: ${e.message}`);
    }
  }
  return out;
}

function knownKeys(raw: Record<string, unknown>, known: string[]): void {
  const unknown = Object.keys(raw).filter((k) => !known.includes(k));
  if (unknown.length) throw new SettingInvalid(`Invalid key names: ${unknown.join(', ')}`);
}

function field(raw: Record<string, unknown>, key: string, opts: { required?: boolean; fallback?: string; max?: number } = {}): string {
  const value = raw[key];
  if (value === undefined || value === null || value === '') {
    if (opts.required) throw new SettingInvalid(`${key}: This field is required.`);
    return opts.fallback ?? '';
  }
  if (typeof value !== 'string') throw new SettingInvalid(`${key}: Not a valid string.`);
  if (value.length > (opts.max ?? 1024)) throw new SettingInvalid(`${key}: Ensure this field has no more than ${opts.max ?? 1024} characters.`);
  return value.trim();
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/**
 * An issuer URL: https, or plain http only on a loopback address (test and development identity
 * providers; openid-client's allowInsecureRequests is enabled for exactly those). No query or
 * fragment (OpenID Connect Discovery §2).
 */
export function validateIssuer(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SettingInvalid('issuer: Enter a valid URL.');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new SettingInvalid('issuer: The issuer must be an https URL (plain http only on a loopback address).');
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new SettingInvalid('issuer: The issuer must not have a query, fragment or credentials.');
  }
  return value;
}

export function isLoopbackHttp(value: string): boolean {
  const url = new URL(value);
  return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

function httpUrl(key: string, value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value;
  } catch {
    /* fall through */
  }
  throw new SettingInvalid(`${key}: Enter a valid URL.`);
}

function oidcProvider(raw: Record<string, unknown>): OidcProviderConfig {
  knownKeys(raw, ['issuer', 'client_id', 'client_secret', ...Object.keys(OIDC_DEFAULTS)]);
  const scopes = field(raw, 'scopes', { fallback: OIDC_DEFAULTS.scopes });
  if (!scopes.split(/\s+/).includes('openid')) throw new SettingInvalid('scopes: The scopes must include "openid".');
  return {
    issuer: validateIssuer(field(raw, 'issuer', { required: true })),
    client_id: field(raw, 'client_id', { required: true, max: 255 }),
    client_secret: typeof raw.client_secret === 'string' ? raw.client_secret : field(raw, 'client_secret'),
    scopes,
    attr_username: field(raw, 'attr_username', { fallback: OIDC_DEFAULTS.attr_username }),
    attr_email: field(raw, 'attr_email', { fallback: OIDC_DEFAULTS.attr_email }),
    attr_first_name: field(raw, 'attr_first_name', { fallback: OIDC_DEFAULTS.attr_first_name }),
    attr_last_name: field(raw, 'attr_last_name', { fallback: OIDC_DEFAULTS.attr_last_name }),
  };
}

/** AWX takes an IdP certificate as PEM or as the bare base64 body; both are stored as PEM. */
export function normaliseCertificate(value: string): string {
  const body = value.includes('-----BEGIN')
    ? value.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '')
    : value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+=*$/.test(body)) throw new Error('not base64');
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  new X509Certificate(pem); // throws on anything that is not a certificate
  return pem;
}

function certificate(key: string, value: string): string {
  try {
    return normaliseCertificate(value);
  } catch {
    throw new SettingInvalid(`${key}: Invalid certificate (expected PEM or the base64 body of an X.509 certificate).`);
  }
}

function samlIdp(raw: Record<string, unknown>): SamlIdpConfig {
  knownKeys(raw, ['entity_id', 'url', 'x509cert', ...Object.keys(SAML_DEFAULTS)]);
  return {
    entity_id: field(raw, 'entity_id', { required: true }),
    url: httpUrl('url', field(raw, 'url', { required: true })),
    x509cert: certificate('x509cert', field(raw, 'x509cert', { required: true, max: 16384 })),
    attr_user_permanent_id: field(raw, 'attr_user_permanent_id', { fallback: SAML_DEFAULTS.attr_user_permanent_id }),
    attr_username: field(raw, 'attr_username', { fallback: SAML_DEFAULTS.attr_username }),
    attr_email: field(raw, 'attr_email', { fallback: SAML_DEFAULTS.attr_email }),
    attr_first_name: field(raw, 'attr_first_name', { fallback: SAML_DEFAULTS.attr_first_name }),
    attr_last_name: field(raw, 'attr_last_name', { fallback: SAML_DEFAULTS.attr_last_name }),
  };
}

function stringList(key: string, value: unknown): string[] {
  // AWX accepts one value or a list of values.
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.some((item) => typeof item !== 'string')) throw new SettingInvalid(`${key}: Expected a list of strings.`);
  return list as string[];
}

function userFlags(value: unknown): SamlUserFlags {
  const raw = dictionary(value);
  knownKeys(raw, ['is_superuser_attr', 'is_superuser_value', 'is_system_auditor_attr', 'is_system_auditor_value']);
  const out: SamlUserFlags = {};
  for (const flag of ['is_superuser', 'is_system_auditor'] as const) {
    const attr = field(raw, `${flag}_attr`);
    if (attr) out[`${flag}_attr`] = attr;
    if (raw[`${flag}_value`] !== undefined) out[`${flag}_value`] = stringList(`${flag}_value`, raw[`${flag}_value`]);
  }
  return out;
}

function pemCertificateOrBlank(value: unknown): string {
  const s = v.string(16384)(value).trim();
  if (!s) return '';
  try {
    new X509Certificate(s);
    return s;
  } catch {
    throw new SettingInvalid('Invalid certificate (expected a PEM X.509 certificate).');
  }
}

function pemPrivateKeyOrBlank(value: unknown): string {
  const s = v.string(16384)(value).trim();
  if (!s) return '';
  try {
    createPrivateKey(s);
    return s;
  } catch {
    throw new SettingInvalid('Invalid private key (expected a PEM private key).');
  }
}

function readOnly(): never {
  throw new SettingInvalid('This field is read-only.');
}

/** The `oidc` and `saml` settings categories; the read-only URLs are built from PUBLIC_URL. */
export function ssoSettingDefinitions(publicUrl: string): SettingDefinition[] {
  return [
    {
      key: 'SOCIAL_AUTH_OIDC_PROVIDERS',
      category: 'oidc',
      default: {},
      secret: true,
      validate: (value) => providerMap(value, oidcProvider),
    },
    { key: 'SOCIAL_AUTH_SAML_CALLBACK_URL', category: 'saml', default: `${publicUrl}/sso/complete/saml/`, readOnly: true, validate: readOnly },
    { key: 'SOCIAL_AUTH_SAML_METADATA_URL', category: 'saml', default: `${publicUrl}/sso/metadata/saml/`, readOnly: true, validate: readOnly },
    { key: 'SOCIAL_AUTH_SAML_SP_ENTITY_ID', category: 'saml', default: publicUrl, validate: v.string(1024) },
    { key: 'SOCIAL_AUTH_SAML_SP_PUBLIC_CERT', category: 'saml', default: '', validate: pemCertificateOrBlank },
    { key: 'SOCIAL_AUTH_SAML_SP_PRIVATE_KEY', category: 'saml', default: '', secret: true, validate: pemPrivateKeyOrBlank },
    { key: 'SOCIAL_AUTH_SAML_ENABLED_IDPS', category: 'saml', default: {}, validate: (value) => providerMap(value, samlIdp) },
    { key: 'SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR', category: 'saml', default: {}, validate: userFlags },
  ];
}

/** The SP certificate and key are used together: both or neither, and they must belong together. */
export function checkSamlSpKeyPair(next: Record<string, unknown>): Record<string, string[]> | undefined {
  const cert = String(next.SOCIAL_AUTH_SAML_SP_PUBLIC_CERT ?? '');
  const key = String(next.SOCIAL_AUTH_SAML_SP_PRIVATE_KEY ?? '');
  if (!cert && !key) return undefined;
  if (!cert) return { SOCIAL_AUTH_SAML_SP_PUBLIC_CERT: ['A certificate is required together with the private key.'] };
  if (!key) return { SOCIAL_AUTH_SAML_SP_PRIVATE_KEY: ['A private key is required together with the certificate.'] };
  try {
    if (new X509Certificate(cert).checkPrivateKey(createPrivateKey(key))) return undefined;
  } catch {
    /* fall through */
  }
  return { SOCIAL_AUTH_SAML_SP_PRIVATE_KEY: ['The private key does not match the certificate.'] };
}
