import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Clock } from '../common/clock';
import { rules } from '../common/fields';
import { OwnedRecords } from '../resources/owned-records';
import { OwnedResourceDefinition, OwnedResourceService } from '../resources/owned-resource.service';
import { NAME_FIELDS, variablesRule } from '../resources/resource-fields';
import { JobTemplate } from './job-template.entity';
import { serializeJobTemplate } from './job-template.serializer';

/** A host pattern (`web*:&prod`); AWX keeps it as text, this is room for a long one. */
export const LIMIT_MAX = 8192;

/**
 * A job template needs only a name (SPEC §10). `ask_limit_on_launch` defaults to true, unlike AWX,
 * because the seed's launch example passes a `limit` and expects it to apply.
 */
export const JOB_TEMPLATE_DEFINITION: OwnedResourceDefinition<JobTemplate> = {
  path: '/api/v2/job_templates/',
  schema: {
    ...NAME_FIELDS,
    job_type: { rule: rules.choice(['run', 'check'] as const) },
    inventory: { rule: rules.intOrNull() },
    project: { rule: rules.intOrNull() },
    playbook: { rule: rules.string({ max: 1024, blank: true }) },
    limit: { rule: rules.string({ max: LIMIT_MAX, blank: true }) },
    extra_vars: { rule: variablesRule() },
    ask_limit_on_launch: { rule: rules.bool() },
  },
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
  },
  defaults: {
    description: '', jobType: 'run', inventoryId: null, projectId: null, playbook: '', limit: '', extraVars: '', askLimitOnLaunch: true,
  },
  view: serializeJobTemplate,
};

@Injectable()
export class JobTemplatesService extends OwnedResourceService<JobTemplate> {
  constructor(@InjectRepository(JobTemplate) repository: Repository<JobTemplate>, clock: Clock) {
    super(new OwnedRecords(repository, clock), JOB_TEMPLATE_DEFINITION);
  }
}
