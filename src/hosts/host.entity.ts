import { Column, Entity } from 'typeorm';
import { OwnedResource } from '../resources/owned-resource.entity';

/**
 * A managed machine, as AWX's `main_host`. `inventory` is kept as the number the client sent: this
 * service has no inventories (the seed's examples need none), so it is recorded, not checked.
 */
@Entity({ name: 'main_host' })
export class Host extends OwnedResource {
  @Column({ name: 'inventory_id', type: 'integer', nullable: true })
  inventoryId: number | null;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ name: 'instance_id', type: 'varchar', length: 1024, default: '' })
  instanceId: string;

  @Column({ type: 'text' })
  variables: string;
}
