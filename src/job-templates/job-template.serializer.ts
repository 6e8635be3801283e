import { canChange } from '../resources/ownership';
import type { Principal } from '../common/principal';
import { resourceFields } from '../resources/resource-view';
import type { JobOptions } from './job-options.entity';
import type { JobTemplate } from './job-template.entity';

/** The fields templates and jobs share, as AWX names them. */
export function jobOptionFields(options: JobOptions): Record<string, unknown> {
  return {
    job_type: options.jobType,
    inventory: options.inventoryId,
    project: options.projectId,
    playbook: options.playbook,
    limit: options.limit,
    extra_vars: options.extraVars,
  };
}

/** AWX's JobTemplateSerializer fields that mean something here; `start` says who may launch. */
export function serializeJobTemplate(template: JobTemplate, principal: Principal): Record<string, unknown> {
  const url = `/api/v2/job_templates/${template.id}/`;
  return {
    ...resourceFields(template, {
      type: 'job_template',
      url,
      principal,
      related: { launch: `${url}launch/` },
      capabilities: { start: canChange(principal, template.createdById) },
    }),
    ...jobOptionFields(template),
    ...launchPrompts(template),
  };
}

/** AWX's prompt-on-launch switches and survey flag (SPEC §19). */
export function launchPrompts(template: JobTemplate): Record<string, boolean> {
  return {
    ask_limit_on_launch: template.askLimitOnLaunch,
    ask_variables_on_launch: template.askVariablesOnLaunch,
    ask_inventory_on_launch: template.askInventoryOnLaunch,
    ask_credential_on_launch: template.askCredentialOnLaunch,
    ask_job_type_on_launch: template.askJobTypeOnLaunch,
    ask_tags_on_launch: template.askTagsOnLaunch,
    ask_skip_tags_on_launch: template.askSkipTagsOnLaunch,
    ask_diff_mode_on_launch: template.askDiffModeOnLaunch,
    ask_verbosity_on_launch: template.askVerbosityOnLaunch,
    ask_scm_branch_on_launch: template.askScmBranchOnLaunch,
    survey_enabled: template.surveyEnabled,
  };
}

/** `GET .../launch/`: what launching needs. Nothing is ever required here: no surveys or passwords; the prompts say what may be sent. */
export function launchRequirements(template: JobTemplate): Record<string, unknown> {
  return {
    can_start_without_user_input: true,
    passwords_needed_to_start: [],
    ...launchPrompts(template),
    variables_needed_to_start: [],
    credential_needed_to_start: false,
    inventory_needed_to_start: false,
    job_template_data: { id: template.id, name: template.name, description: template.description },
    defaults: { limit: template.limit, extra_vars: template.extraVars, job_type: template.jobType },
  };
}
