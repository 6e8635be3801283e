import { Column } from 'typeorm';
import { OwnedResource } from '../resources/owned-resource.entity';

/**
 * The fields a job template and its jobs share (AWX's abstract `JobOptions` model): launching copies
 * them from template to job. Inventory and project are recorded as the numbers sent; no inventories
 * or projects exist here (the seed's examples need none).
 */
export abstract class JobOptions extends OwnedResource {
  @Column({ name: 'job_type', type: 'varchar', length: 20 })
  jobType: string;

  @Column({ name: 'inventory_id', type: 'integer', nullable: true })
  inventoryId: number | null;

  @Column({ name: 'project_id', type: 'integer', nullable: true })
  projectId: number | null;

  @Column({ type: 'varchar', length: 1024 })
  playbook: string;

  /** The host pattern; the column avoids `limit`, an SQL keyword. */
  @Column({ name: 'limit_pattern', type: 'text' })
  limit: string;

  @Column({ name: 'extra_vars', type: 'text' })
  extraVars: string;
}
