import { createPrivateKey, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';
import { refuse } from '../common/validation';
import { isHttpUrl } from '../settings/authentication-settings';
import { SettingDefinition } from '../settings/setting-definition';
import { samlUserFlagsSchema } from './saml/saml-attribute-settings';

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
  /** SPEC §21: the claim holding the user's groups for the maps (DAB's GROUPS_CLAIM). */
  groups_claim: string;
}

/** One IdP of `SOCIAL_AUTH_SAML_ENABLED_IDPS` (AWX's keys), defaults filled in. */
export interface SamlIdpConfig {
  entity_id: string;
  url: string;
  /** The IdP's single logout service (HTTP-Redirect binding), SPEC §17; without it logouts stay local. */
  slo_url?: string;
  x509cert: string;
  attr_user_permanent_id: string;
  attr_username: string;
  attr_email: string;
  attr_first_name: string;
  attr_last_name: string;
  /** SPEC §21: the assertion attribute holding the user's groups for the maps (unset: none; DAB's IDP_GROUPS). */
  attr_groups?: string;
}

const OIDC_DEFAULTS = {
  client_secret: '',
  scopes: 'openid profile email',
  attr_username: 'preferred_username',
  attr_email: 'email',
  attr_first_name: 'given_name',
  attr_last_name: 'family_name',
  groups_claim: 'groups',
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
export const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** A `{"<name>": {...}}` map of providers; a message names the provider and the field. */
function providerMap<T extends z.ZodType>(entry: T) {
  const name = z.string().regex(PROVIDER_NAME, {
    error: (issue) => `"${String(issue.input)}" is not a valid provider name (letters, digits, "_", "." and "-", at most 64).`,
  });
  return z.record(name, entry);
}

/** Missing, null and "" are all "not given", as AWX's forms send them. */
const absent = (value: unknown) => (value === null || value === '' ? undefined : value);

/** A text field of a provider: trimmed, at most `max` characters; required unless it has a fallback. */
function field(opts: { fallback?: string; max?: number } = {}) {
  const trimmed = z.string().max(opts.max ?? 1024).transform((value) => value.trim());
  return z.preprocess(absent, opts.fallback === undefined ? trimmed : trimmed.default(opts.fallback));
}

const optionalField = () => z.preprocess(absent, z.string().max(1024).transform((value) => value.trim()).optional());

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** Why a value is not an issuer URL, or nothing when it is one. */
function issuerProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Enter a valid URL.';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return 'The issuer must be an https URL (plain http only on a loopback address).';
  }
  if (url.search || url.hash || url.username || url.password) return 'The issuer must not have a query, fragment or credentials.';
  return undefined;
}

/**
 * An issuer URL: https, or plain http only on a loopback address (test and development identity
 * providers; openid-client's allowInsecureRequests is enabled for exactly those). No query or
 * fragment (OpenID Connect Discovery §2).
 */
const issuer = field().superRefine((value, ctx) => {
  const problem = issuerProblem(value);
  if (problem) refuse(ctx, problem, value);
});

export function isLoopbackHttp(value: string): boolean {
  const url = new URL(value);
  return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

const httpUrl = field().refine(isHttpUrl, 'Enter a valid URL.');
const optionalHttpUrl = optionalField().refine((value) => value === undefined || value === '' || isHttpUrl(value), 'Enter a valid URL.');

/**
 * One OpenID Connect provider; a client secret is kept exactly as given. The scopes are checked first
 * (as they always were) and the provider is stored in its documented key order.
 */
const oidcProvider = z
  .strictObject({
    scopes: field({ fallback: OIDC_DEFAULTS.scopes }).refine((scopes) => scopes.split(/\s+/).includes('openid'), 'The scopes must include "openid".'),
    issuer,
    client_id: field({ max: 255 }),
    client_secret: z.preprocess((value) => (value === null ? undefined : value), z.string().default('')),
    attr_username: field({ fallback: OIDC_DEFAULTS.attr_username }),
    attr_email: field({ fallback: OIDC_DEFAULTS.attr_email }),
    attr_first_name: field({ fallback: OIDC_DEFAULTS.attr_first_name }),
    attr_last_name: field({ fallback: OIDC_DEFAULTS.attr_last_name }),
    groups_claim: field({ fallback: OIDC_DEFAULTS.groups_claim }),
  })
  .transform(({ scopes, issuer, client_id, client_secret, ...attrs }): OidcProviderConfig => ({ issuer, client_id, client_secret, scopes, ...attrs }));

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

const idpCertificate = field({ max: 16384 }).transform((value, ctx) => {
  try {
    return normaliseCertificate(value);
  } catch {
    refuse(ctx, 'Invalid certificate (expected PEM or the base64 body of an X.509 certificate).', value);
    return z.NEVER;
  }
});

/** One SAML IdP, with python-social-auth's attribute defaults. */
const samlIdp = z.strictObject({
  entity_id: field(),
  url: httpUrl,
  slo_url: optionalHttpUrl,
  x509cert: idpCertificate,
  attr_user_permanent_id: field({ fallback: SAML_DEFAULTS.attr_user_permanent_id }),
  attr_username: field({ fallback: SAML_DEFAULTS.attr_username }),
  attr_email: field({ fallback: SAML_DEFAULTS.attr_email }),
  attr_first_name: field({ fallback: SAML_DEFAULTS.attr_first_name }),
  attr_last_name: field({ fallback: SAML_DEFAULTS.attr_last_name }),
  attr_groups: optionalField(),
});

/** A PEM value of at most 16384 characters, trimmed, or blank; `valid` says whether it parses. */
function pemOrBlank(valid: (pem: string) => unknown, message: string) {
  return z
    .string()
    .max(16384)
    .transform((value) => value.trim())
    .refine((pem) => {
      if (!pem) return true;
      try {
        valid(pem);
        return true;
      } catch {
        return false;
      }
    }, message);
}

const readOnly = z.custom<string>(() => false, 'This field is read-only.');

/** The `oidc` and `saml` settings categories; the read-only URLs are built from PUBLIC_URL. */
export function ssoSettingDefinitions(publicUrl: string): SettingDefinition[] {
  return [
    {
      key: 'SOCIAL_AUTH_OIDC_PROVIDERS',
      category: 'oidc',
      default: {},
      secret: true,
      schema: providerMap(oidcProvider),
    },
    { key: 'SOCIAL_AUTH_SAML_CALLBACK_URL', category: 'saml', default: `${publicUrl}/sso/complete/saml/`, readOnly: true, schema: readOnly },
    { key: 'SOCIAL_AUTH_SAML_METADATA_URL', category: 'saml', default: `${publicUrl}/sso/metadata/saml/`, readOnly: true, schema: readOnly },
    { key: 'SOCIAL_AUTH_SAML_SP_ENTITY_ID', category: 'saml', default: publicUrl, schema: z.string().max(1024) },
    { key: 'SOCIAL_AUTH_SAML_SP_PUBLIC_CERT', category: 'saml', default: '', schema: pemOrBlank((pem) => new X509Certificate(pem), 'Invalid certificate (expected a PEM X.509 certificate).') },
    { key: 'SOCIAL_AUTH_SAML_SP_PRIVATE_KEY', category: 'saml', default: '', secret: true, schema: pemOrBlank(createPrivateKey, 'Invalid private key (expected a PEM private key).') },
    { key: 'SOCIAL_AUTH_SAML_ENABLED_IDPS', category: 'saml', default: {}, schema: providerMap(samlIdp) },
    // §7's key with AWX's other keys (SPEC §21): `_role`, `remove_*`; read by the maps.
    { key: 'SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR', category: 'saml', default: {}, schema: samlUserFlagsSchema },
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
