import { Injectable } from '@nestjs/common';
import { ActivityRecord } from '../common/activity-record';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Clock } from '../common/clock';
import { z } from 'zod';
import { pkOrNull, text } from '../common/validation';
import { OwnedRecords } from '../resources/owned-records';
import { OwnedResourceDefinition, OwnedResourceService } from '../resources/owned-resource.service';
import { NAME_FIELDS, variables } from '../resources/resource-fields';
import { JobTemplate } from './job-template.entity';
import { JOB_TEMPLATE_LIST } from './job-lists';
import { serializeJobTemplate } from './job-template.serializer';

/** A host pattern (`web*:&prod`); AWX keeps it as text, this is room for a long one. */
export const LIMIT_MAX = 8192;

/**
 * A job template needs only a name (SPEC §10). `ask_limit_on_launch` defaults to true, unlike AWX,
 * because the seed's launch example passes a `limit` and expects it to apply; every other launch
 * prompt defaults to false (SPEC §19).
 */
export const JOB_TEMPLATE_DEFINITION: OwnedResourceDefinition<JobTemplate> = {
  path: '/api/v2/job_templates/',
  schema: z.object({
    ...NAME_FIELDS,
    job_type: z.enum(['run', 'check']).optional(),
    inventory: pkOrNull.optional(),
    project: pkOrNull.optional(),
    playbook: text(1024, { blank: true }).optional(),
    limit: text(LIMIT_MAX, { blank: true }).optional(),
    extra_vars: variables.optional(),
    ask_limit_on_launch: z.boolean().optional(),
    ask_variables_on_launch: z.boolean().optional(),
    ask_inventory_on_launch: z.boolean().optional(),
    ask_credential_on_launch: z.boolean().optional(),
    ask_job_type_on_launch: z.boolean().optional(),
    ask_tags_on_launch: z.boolean().optional(),
    ask_skip_tags_on_launch: z.boolean().optional(),
    ask_diff_mode_on_launch: z.boolean().optional(),
    ask_verbosity_on_launch: z.boolean().optional(),
    ask_scm_branch_on_launch: z.boolean().optional(),
    survey_enabled: z.boolean().optional(),
  }),
  columns: {
    name: 'name',
    description: 'description',
    job_type: 'jobType',
    inventory: 'inventoryId',
    project: 'projectId',
    playbook: 'playbook',
    limit: 'limit',
    extra_vars: 'extraVars',
    ask_limit_on_launch: 'askLimitOnLaunch',
    ask_variables_on_launch: 'askVariablesOnLaunch',
    ask_inventory_on_launch: 'askInventoryOnLaunch',
    ask_credential_on_launch: 'askCredentialOnLaunch',
    ask_job_type_on_launch: 'askJobTypeOnLaunch',
    ask_tags_on_launch: 'askTagsOnLaunch',
    ask_skip_tags_on_launch: 'askSkipTagsOnLaunch',
    ask_diff_mode_on_launch: 'askDiffModeOnLaunch',
    ask_verbosity_on_launch: 'askVerbosityOnLaunch',
    ask_scm_branch_on_launch: 'askScmBranchOnLaunch',
    survey_enabled: 'surveyEnabled',
  },
  defaults: {
    description: '', jobType: 'run', inventoryId: null, projectId: null, playbook: '', limit: '', extraVars: '', askLimitOnLaunch: true,
    askVariablesOnLaunch: false, askInventoryOnLaunch: false, askCredentialOnLaunch: false, askJobTypeOnLaunch: false, askTagsOnLaunch: false, askSkipTagsOnLaunch: false, askDiffModeOnLaunch: false, askVerbosityOnLaunch: false, askScmBranchOnLaunch: false, surveyEnabled: false,
  },
  view: serializeJobTemplate,
  streamKind: 'job_template',
};

@Injectable()
export class JobTemplatesService extends OwnedResourceService<JobTemplate> {
  constructor(@InjectRepository(JobTemplate) repository: Repository<JobTemplate>, clock: Clock, activity: ActivityRecord) {
    super(new OwnedRecords(repository, clock, JOB_TEMPLATE_LIST), JOB_TEMPLATE_DEFINITION, activity);
  }
}
