import { attributeFlagsPart, FlagsByAttribute } from '../maps/dialects/attribute-flags';
import { combineParts } from '../maps/dialects/awx-part';
import type { Claims } from '../maps/map-contract';
import type { MapSourceReader, SettingsView } from '../maps/map-sources';
import { RADIUS_ACCOUNT } from './radius-logins.service';

/** How a RADIUS login reads AWX's settings (SPEC §20, §21): RADIUS_USER_FLAGS_BY_ATTR, on the Access-Accept's attributes. */
export const radiusMapReader: MapSourceReader = {
  family: RADIUS_ACCOUNT,
  accepts: (instance) => instance === null,
  keys: () => ['RADIUS_USER_FLAGS_BY_ATTR'],
  awxVerdicts(_instance: string | null, claims: Claims, get: SettingsView) {
    return combineParts([attributeFlagsPart('RADIUS_USER_FLAGS_BY_ATTR', (get('RADIUS_USER_FLAGS_BY_ATTR') ?? {}) as FlagsByAttribute, claims.attributes)], true);
  },
};
