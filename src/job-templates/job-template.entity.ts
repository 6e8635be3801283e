import { Column, Entity } from 'typeorm';
import { JobOptions } from './job-options.entity';

/** What to run and where, as AWX's `main_jobtemplate`. */
@Entity({ name: 'main_jobtemplate' })
export class JobTemplate extends JobOptions {
  /** Whether a `limit` given at launch replaces the template's (AWX's prompt-on-launch switch). */
  @Column({ name: 'ask_limit_on_launch', type: 'boolean' })
  askLimitOnLaunch: boolean;
}
