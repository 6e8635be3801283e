import type { Principal } from '../common/principal';
import { resourceFields } from '../resources/resource-view';
import type { Job } from './job.entity';
import { jobOptionFields } from './job-template.serializer';

/**
 * AWX's JobSerializer fields that mean something here (SPEC §10: `id`, `job` (= id), `type`, `url`,
 * `job_template`, `limit`, `launched_by`, `status`, `created`). Nothing runs, so a job never starts,
 * finishes or fails, and neither relaunching nor deleting is offered.
 */
export function serializeJob(job: Job, principal: Principal): Record<string, unknown> {
  const template = job.jobTemplate;
  const launcher = job.createdBy;
  return {
    ...resourceFields(job, {
      type: 'job',
      url: `/api/v2/jobs/${job.id}/`,
      principal,
      related: template ? { job_template: `/api/v2/job_templates/${template.id}/` } : {},
      summary: template ? { job_template: { id: template.id, name: template.name, description: template.description } } : {},
      capabilities: { edit: false, delete: false, start: false },
    }),
    job: job.id,
    job_template: job.jobTemplateId,
    ...jobOptionFields(job),
    launch_type: job.launchType,
    status: job.status,
    failed: false,
    started: null,
    finished: null,
    elapsed: 0,
    launched_by: launcher ? { id: launcher.id, name: launcher.username, type: 'user', url: `/api/v2/users/${launcher.id}/` } : null,
  };
}
