import type { Principal } from '../common/principal';
import { resourceFields } from '../resources/resource-view';
import type { Host } from './host.entity';

/** AWX's HostSerializer fields that mean something here. */
export function serializeHost(host: Host, principal: Principal): Record<string, unknown> {
  return {
    ...resourceFields(host, { type: 'host', url: `/api/v2/hosts/${host.id}/`, principal }),
    inventory: host.inventoryId,
    enabled: host.enabled,
    instance_id: host.instanceId,
    variables: host.variables,
  };
}
