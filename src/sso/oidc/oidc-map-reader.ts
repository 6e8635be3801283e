import { combineParts } from '../../maps/dialects/awx-part';
import { socialOrganizationMapPart, socialTeamMapPart } from '../../maps/dialects/social-maps';
import type { Claims } from '../../maps/map-contract';
import type { MapSourceReader, SettingsView } from '../../maps/map-sources';
import type { OrganizationMap, TeamMap } from '../../maps/map-settings';
import { PROVIDER_NAME } from '../sso-settings';

const KEYS = ['SOCIAL_AUTH_OIDC_ORGANIZATION_MAP', 'SOCIAL_AUTH_OIDC_TEAM_MAP', 'SOCIAL_AUTH_ORGANIZATION_MAP', 'SOCIAL_AUTH_TEAM_MAP'];

/**
 * How an OpenID Connect login reads AWX's settings (SPEC §21): the organization and team maps it resolves to
 * (its own, null by default, which reads the `authentication` ones as AWX 23's generic OIDC backend does).
 * Its maps make every organization and team they name.
 */
export const oidcMapReader: MapSourceReader = {
  family: 'oidc',
  accepts: (instance) => instance !== null && PROVIDER_NAME.test(instance),
  instances: 'oidc:<provider>',
  keys: () => KEYS,
  awxVerdicts(_instance: string | null, claims: Claims, get: SettingsView, username: string) {
    const subject = { username, email: claims.email };
    const organizationKey = get('SOCIAL_AUTH_OIDC_ORGANIZATION_MAP') === null ? 'SOCIAL_AUTH_ORGANIZATION_MAP' : 'SOCIAL_AUTH_OIDC_ORGANIZATION_MAP';
    const teamKey = get('SOCIAL_AUTH_OIDC_TEAM_MAP') === null ? 'SOCIAL_AUTH_TEAM_MAP' : 'SOCIAL_AUTH_OIDC_TEAM_MAP';
    return combineParts(
      [socialOrganizationMapPart(organizationKey, get(organizationKey) as OrganizationMap | null, subject), socialTeamMapPart(teamKey, get(teamKey) as TeamMap | null, subject)],
      true,
    );
  },
};
