import { ownedResourceList } from '../resources/resource-lists';
import { ActivityRecord } from '../common/activity-record';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Clock } from '../common/clock';
import { z } from 'zod';
import { pkOrNull, text } from '../common/validation';
import { OwnedRecords } from '../resources/owned-records';
import { OwnedResourceDefinition, OwnedResourceService } from '../resources/owned-resource.service';
import { NAME_FIELDS, variables } from '../resources/resource-fields';
import { Host } from './host.entity';
import { serializeHost } from './host.serializer';

/** A host needs only a name (SPEC §10); the other AWX fields are optional. */
export const HOST_DEFINITION: OwnedResourceDefinition<Host> = {
  path: '/api/v2/hosts/',
  schema: z.object({
    ...NAME_FIELDS,
    inventory: pkOrNull.optional(),
    enabled: z.boolean().optional(),
    instance_id: text(1024, { blank: true }).optional(),
    variables: variables.optional(),
  }),
  columns: {
    name: 'name',
    description: 'description',
    inventory: 'inventoryId',
    enabled: 'enabled',
    instance_id: 'instanceId',
    variables: 'variables',
  },
  defaults: { description: '', inventoryId: null, enabled: true, instanceId: '', variables: '' },
  view: serializeHost,
  streamKind: 'host',
};

@Injectable()
export class HostsService extends OwnedResourceService<Host> {
  constructor(@InjectRepository(Host) repository: Repository<Host>, clock: Clock, activity: ActivityRecord) {
    super(
      new OwnedRecords(repository, clock, ownedResourceList({
        inventory: { property: 'inventoryId', type: 'fk' },
        enabled: { property: 'enabled', type: 'bool' },
        instance_id: { property: 'instanceId', type: 'string' },
        variables: { property: 'variables', type: 'string' },
      })),
      HOST_DEFINITION,
      activity,
    );
  }
}
