import { combineParts } from '../../maps/dialects/awx-part';
import { samlFlagsPart, samlOrganizationAttrPart, samlTeamAttrPart } from './saml-attribute-maps';
import { socialOrganizationMapPart, socialTeamMapPart } from '../../maps/dialects/social-maps';
import type { Claims } from '../../maps/map-contract';
import type { MapSourceReader, SettingsView } from '../../maps/map-sources';
import type { OrganizationMap, TeamMap } from '../../maps/map-settings';
import type { SamlOrganizationAttr, SamlTeamAttr, SamlUserFlagsByAttr } from './saml-attribute-settings';
import { PROVIDER_NAME } from '../sso-settings';

const KEYS = [
  'SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR', 'SOCIAL_AUTH_SAML_ORGANIZATION_MAP', 'SOCIAL_AUTH_SAML_TEAM_MAP', 'SOCIAL_AUTH_SAML_ORGANIZATION_ATTR',
  'SOCIAL_AUTH_SAML_TEAM_ATTR', 'SAML_AUTO_CREATE_OBJECTS', 'SOCIAL_AUTH_ORGANIZATION_MAP', 'SOCIAL_AUTH_TEAM_MAP',
];

/** SAML's own map, or (null) the `authentication` one; `{}` is its own and names nothing (AWX). */
function resolved(get: SettingsView, own: string, global: string): string {
  return get(own) === null ? global : own;
}

/**
 * How a SAML login reads AWX's settings (SPEC §21): the flags of SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR
 * (`_check_flag`), the organization and team maps it resolves to, and the attribute maps. While
 * SAML_AUTO_CREATE_OBJECTS is false it makes nothing, and a grant naming a missing object is dropped.
 */
export const samlMapReader: MapSourceReader = {
  family: 'saml',
  // A named IdP need not exist yet (a rule, or the dry run, may name one before it is configured).
  accepts: (instance) => instance !== null && PROVIDER_NAME.test(instance),
  instances: 'saml:<IdP>',
  keys: () => KEYS,
  awxVerdicts(_instance: string | null, claims: Claims, get: SettingsView, username: string) {
    const subject = { username, email: claims.email };
    const organizationKey = resolved(get, 'SOCIAL_AUTH_SAML_ORGANIZATION_MAP', 'SOCIAL_AUTH_ORGANIZATION_MAP');
    const teamKey = resolved(get, 'SOCIAL_AUTH_SAML_TEAM_MAP', 'SOCIAL_AUTH_TEAM_MAP');
    const organizationMap = get(organizationKey) as OrganizationMap | null;
    return combineParts(
      [
        samlFlagsPart((get('SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR') ?? {}) as SamlUserFlagsByAttr, claims.attributes),
        socialOrganizationMapPart(organizationKey, organizationMap, subject),
        socialTeamMapPart(teamKey, get(teamKey) as TeamMap | null, subject),
        samlOrganizationAttrPart((get('SOCIAL_AUTH_SAML_ORGANIZATION_ATTR') ?? {}) as SamlOrganizationAttr, organizationMap, claims.attributes),
        samlTeamAttrPart((get('SOCIAL_AUTH_SAML_TEAM_ATTR') ?? {}) as SamlTeamAttr, claims.attributes),
      ],
      get('SAML_AUTO_CREATE_OBJECTS') !== false,
    );
  },
};
