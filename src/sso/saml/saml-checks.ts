import type { Profile } from '@node-saml/node-saml';
import { textAttributes } from '../../maps/claims-record';
import type { Claims } from '../../maps/map-contract';
import { ExternalIdentity, stringClaim } from '../external-identity';
import { SsoFailure } from '../sso-failure';
import type { SamlIdpConfig } from '../sso-settings';
import { SAML_CLOCK_SKEW_MS } from './saml-config';
import { readSamlMessage } from './saml-xml';

const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

/** The assertion as node-saml's profile gives it (`getAssertion()`: xml2js, explicitCharkey, prefixes stripped). */
type Node = { _?: string; $?: Record<string, string> } & { [child: string]: Node[] | string | Record<string, string> | undefined };

function children(node: Node | undefined, name: string): Node[] {
  const value = node?.[name];
  return Array.isArray(value) ? value : [];
}

function text(node: Node | undefined): string | undefined {
  return typeof node?._ === 'string' ? node._.trim() : undefined;
}

function attr(node: Node | undefined, name: string): string | undefined {
  return node?.$?.[name];
}

function time(value: string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new SsoFailure('invalid_response', `unreadable ${what}`);
  return ms;
}

export interface AssertionContext {
  idp: SamlIdpConfig;
  acsUrl: string;
  now: Date;
}

export interface CheckedAssertion {
  id: string;
  /** Until when the assertion could be presented again: the replay cache keeps its id that long. */
  usableUntil: number;
}

/**
 * The checks of SAML Profiles 4.1.4.2–4.1.4.3 that node-saml does not make (security checklist §3.1),
 * on the assertion node-saml verified (never on unsigned bytes), plus the time window again against
 * the injectable clock: Issuer, bearer SubjectConfirmation with our ACS as Recipient, the Response's
 * Destination, Issuer and Status, NotBefore/NotOnOrAfter.
 */
export function checkAssertion(profile: Profile, ctx: AssertionContext): CheckedAssertion {
  const assertion = (profile.getAssertion?.() as { Assertion?: Node } | undefined)?.Assertion;
  if (!assertion) throw new SsoFailure('invalid_response', 'no verified assertion');
  const now = ctx.now.getTime();
  const id = attr(assertion, 'ID');
  if (!id) throw new SsoFailure('invalid_response', 'assertion without ID');

  if (text(children(assertion, 'Issuer')[0]) !== ctx.idp.entity_id) throw new SsoFailure('invalid_response', 'assertion Issuer is not the IdP');

  const response = readSamlMessage(profile.getSamlResponseXml?.() ?? '');
  if (response.kind !== 'Response') throw new SsoFailure('invalid_response', 'not a Response');
  if (response.destination !== undefined && response.destination !== ctx.acsUrl) throw new SsoFailure('invalid_response', 'Destination is not our ACS');
  if (response.issuer !== undefined && response.issuer !== ctx.idp.entity_id) throw new SsoFailure('invalid_response', 'Response Issuer is not the IdP');
  const inResponseTo = response.inResponseTo;
  // node-saml reads the Status only when the Response carries no assertion.
  if (response.status !== SUCCESS) throw new SsoFailure('invalid_response', `status ${response.status ?? 'missing'}`);

  let usableUntil = 0;
  const confirmed = children(children(assertion, 'Subject')[0], 'SubjectConfirmation').some((confirmation) => {
    if (attr(confirmation, 'Method') !== BEARER) return false;
    const data = children(confirmation, 'SubjectConfirmationData')[0];
    if (attr(data, 'Recipient') !== ctx.acsUrl) return false;
    const notOnOrAfter = time(attr(data, 'NotOnOrAfter'), 'NotOnOrAfter');
    const notBefore = time(attr(data, 'NotBefore'), 'NotBefore');
    if (notOnOrAfter === undefined || now - SAML_CLOCK_SKEW_MS >= notOnOrAfter) return false;
    if (notBefore !== undefined && now + SAML_CLOCK_SKEW_MS < notBefore) return false;
    const confirmedFor = attr(data, 'InResponseTo');
    // The signed assertion must name our pending request itself (SAML Profiles 4.1.4.2): a Response-level
    // InResponseTo alone could be pasted around an assertion issued for someone else's request.
    if (confirmedFor === undefined || confirmedFor !== inResponseTo) return false;
    usableUntil = Math.max(usableUntil, notOnOrAfter);
    return true;
  });
  if (!confirmed) throw new SsoFailure('invalid_response', 'no bearer SubjectConfirmation for our ACS within its time window');

  const conditions = children(assertion, 'Conditions')[0];
  const notBefore = time(attr(conditions, 'NotBefore'), 'NotBefore');
  const notOnOrAfter = time(attr(conditions, 'NotOnOrAfter'), 'NotOnOrAfter');
  if (notBefore !== undefined && now + SAML_CLOCK_SKEW_MS < notBefore) throw new SsoFailure('invalid_response', 'assertion not yet valid');
  if (notOnOrAfter !== undefined && now - SAML_CLOCK_SKEW_MS >= notOnOrAfter) throw new SsoFailure('invalid_response', 'assertion expired');
  if (notOnOrAfter !== undefined) usableUntil = Math.max(usableUntil, notOnOrAfter);
  return { id, usableUntil: usableUntil + SAML_CLOCK_SKEW_MS };
}

function firstOf(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/** A subject as sent: untrimmed; only an empty one (or a non-string) is no subject. */
function exactClaim(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function attributeValues(profile: Profile, name: string): string[] {
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  const value = Object.hasOwn(attributes, name) ? attributes[name] : undefined;
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.map((item) => stringClaim(item)).filter((item): item is string => item !== undefined);
}

/** Maps a checked assertion to a user: permanent id, names, email and the superuser/auditor flags. */
export function samlIdentity(provider: string, profile: Profile, idp: SamlIdpConfig): ExternalIdentity {
  const first = (name: string) => (name === 'name_id' ? stringClaim(profile.nameID) : attributeValues(profile, name)[0]);
  // The subject exactly as the IdP sent it (SPEC §7): "alice" and "alice " are two people.
  const uid = exactClaim(idp.attr_user_permanent_id === 'name_id' ? profile.nameID : firstOf(((profile.attributes ?? {}) as Record<string, unknown>)[idp.attr_user_permanent_id]));
  if (!uid) throw new SsoFailure('no_identity', `no ${idp.attr_user_permanent_id} in the assertion`);
  return {
    provider,
    uid,
    // SPEC §7: a missing username attribute falls back to the NameID.
    username: first(idp.attr_username) ?? stringClaim(profile.nameID),
    email: first(idp.attr_email),
    firstName: first(idp.attr_first_name),
    lastName: first(idp.attr_last_name),
    claims: samlClaims(profile, idp),
  };
}

/**
 * The maps' view of a SAML login (SPEC §21): the attributes of the assertion, with `name_id`; the groups are
 * the values of the attribute the IdP entry's `attr_groups` names (unset: none). Never the response, the
 * assertion or its SessionIndex.
 */
export function samlClaims(profile: Profile, idp: SamlIdpConfig): Claims {
  const attributes: Record<string, unknown> = { ...((profile.attributes ?? {}) as Record<string, unknown>) };
  if (profile.nameID) attributes.name_id = profile.nameID;
  const first = (name: string) => (name === 'name_id' ? stringClaim(profile.nameID) : attributeValues(profile, name)[0]);
  return {
    username: first(idp.attr_username) ?? stringClaim(profile.nameID) ?? '',
    email: first(idp.attr_email) ?? null,
    groups: idp.attr_groups ? attributeValues(profile, idp.attr_groups) : [],
    attributes: textAttributes(attributes),
  };
}
