import { Column, Entity } from 'typeorm';
import { JobOptions } from './job-options.entity';

/** What to run and where, as AWX's `main_jobtemplate`. */
@Entity({ name: 'main_jobtemplate' })
export class JobTemplate extends JobOptions {
  /** Whether a `limit` given at launch replaces the template's (AWX's prompt-on-launch switch). */
  @Column({ name: 'ask_limit_on_launch', type: 'boolean' })
  askLimitOnLaunch: boolean;

  /** AWX's other launch prompts (SPEC §19): only `extra_vars` is acted on at launch; the rest are recorded. */
  @Column({ name: 'ask_variables_on_launch', type: 'boolean', default: false })
  askVariablesOnLaunch: boolean;

  @Column({ name: 'ask_inventory_on_launch', type: 'boolean', default: false })
  askInventoryOnLaunch: boolean;

  @Column({ name: 'ask_credential_on_launch', type: 'boolean', default: false })
  askCredentialOnLaunch: boolean;

  @Column({ name: 'ask_job_type_on_launch', type: 'boolean', default: false })
  askJobTypeOnLaunch: boolean;

  @Column({ name: 'ask_tags_on_launch', type: 'boolean', default: false })
  askTagsOnLaunch: boolean;

  @Column({ name: 'ask_skip_tags_on_launch', type: 'boolean', default: false })
  askSkipTagsOnLaunch: boolean;

  @Column({ name: 'ask_diff_mode_on_launch', type: 'boolean', default: false })
  askDiffModeOnLaunch: boolean;

  @Column({ name: 'ask_verbosity_on_launch', type: 'boolean', default: false })
  askVerbosityOnLaunch: boolean;

  @Column({ name: 'ask_scm_branch_on_launch', type: 'boolean', default: false })
  askScmBranchOnLaunch: boolean;

  /** No surveys exist here; the flag is AWX's, always false unless set. */
  @Column({ name: 'survey_enabled', type: 'boolean', default: false })
  surveyEnabled: boolean;
}
