import { Column, Entity, JoinColumn, ManyToOne } from 'typeorm';
import { JobOptions } from './job-options.entity';
import { JobTemplate } from './job-template.entity';

/**
 * One launch of a job template, as AWX's `main_job`: the template's options with the limit given
 * at launch. The launching user is `created_by`, so its owner. No automation runs here, so a job
 * stays `pending`. Deleting its template keeps the job (job_template_id becomes NULL).
 */
@Entity({ name: 'main_job' })
export class Job extends JobOptions {
  @Column({ name: 'job_template_id', type: 'integer', nullable: true })
  jobTemplateId: number | null;

  @ManyToOne(() => JobTemplate, { nullable: true, onDelete: 'SET NULL' })
  @JoinColumn({ name: 'job_template_id' })
  jobTemplate?: JobTemplate | null;

  @Column({ name: 'launch_type', type: 'varchar', length: 20 })
  launchType: string;

  @Column({ type: 'varchar', length: 20 })
  status: string;
}
