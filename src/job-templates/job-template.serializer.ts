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
    ask_limit_on_launch: template.askLimitOnLaunch,
  };
}

/** `GET .../launch/`: what launching needs. Nothing is ever required here: no surveys, passwords or prompts but the limit. */
export function launchRequirements(template: JobTemplate): Record<string, unknown> {
  return {
    can_start_without_user_input: true,
    passwords_needed_to_start: [],
    ask_limit_on_launch: template.askLimitOnLaunch,
    ask_variables_on_launch: false,
    ask_inventory_on_launch: false,
    ask_credential_on_launch: false,
    ask_job_type_on_launch: false,
    survey_enabled: false,
    variables_needed_to_start: [],
    credential_needed_to_start: false,
    inventory_needed_to_start: false,
    job_template_data: { id: template.id, name: template.name, description: template.description },
    defaults: { limit: template.limit, extra_vars: template.extraVars, job_type: template.jobType },
  };
}
