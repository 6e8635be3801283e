import { ownedResourceList } from '../resources/resource-lists';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Clock } from '../common/clock';
import { rules } from '../common/fields';
import { OwnedRecords } from '../resources/owned-records';
import { OwnedResourceDefinition, OwnedResourceService } from '../resources/owned-resource.service';
import { NAME_FIELDS, variablesRule } from '../resources/resource-fields';
import { Host } from './host.entity';
import { serializeHost } from './host.serializer';

/** A host needs only a name (SPEC §10); the other AWX fields are optional. */
export const HOST_DEFINITION: OwnedResourceDefinition<Host> = {
  path: '/api/v2/hosts/',
  schema: {
    ...NAME_FIELDS,
    inventory: { rule: rules.intOrNull() },
    enabled: { rule: rules.bool() },
    instance_id: { rule: rules.string({ max: 1024, blank: true }) },
    variables: { rule: variablesRule() },
  },
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
};

@Injectable()
export class HostsService extends OwnedResourceService<Host> {
  constructor(@InjectRepository(Host) repository: Repository<Host>, clock: Clock) {
    super(
      new OwnedRecords(repository, clock, ownedResourceList({
        inventory: { property: 'inventoryId', type: 'fk' },
        enabled: { property: 'enabled', type: 'bool' },
        instance_id: { property: 'instanceId', type: 'string' },
        variables: { property: 'variables', type: 'string' },
      })),
      HOST_DEFINITION,
    );
  }
}
