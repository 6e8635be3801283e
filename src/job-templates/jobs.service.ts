import { Injectable, Logger } from '@nestjs/common';
import { ActivityRecord } from '../common/activity-record';
import { fieldsOf, namedSummary } from '../common/activity-changes';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Clock } from '../common/clock';
import { FieldErrors } from '../common/errors';
import { z } from 'zod';
import { text, validateBody } from '../common/validation';
import { variables } from '../resources/resource-fields';
import { OwnedRecords } from '../resources/owned-records';
import { JOB_LIST, JOB_TEMPLATE_LIST } from './job-lists';
import type { Page } from '../common/pagination';
import type { Principal } from '../common/principal';
import { JobTemplate } from './job-template.entity';
import { launchRequirements } from './job-template.serializer';
import { LIMIT_MAX } from './job-templates.service';
import { Job } from './job.entity';
import { serializeJob } from './job.serializer';
import { RequestTrace } from '../common/request-context';

/** The launch body: the prompts this service records (SPEC §10); other AWX prompts are ignored. */
const LAUNCH_BODY = z.object({ limit: text(LIMIT_MAX, { blank: true }).optional(), extra_vars: variables.optional() });

/**
 * Launching records a job and nothing more: no automation runs in this service (SPEC §10). The job's
 * launcher owns it; the template's owner (or a superuser) may launch; auditors read.
 */
@Injectable()
export class JobsService {
  private readonly logger = new Logger('jobs');
  private readonly jobs: OwnedRecords<Job>;
  private readonly templates: OwnedRecords<JobTemplate>;

  constructor(
    @InjectRepository(Job) jobs: Repository<Job>,
    @InjectRepository(JobTemplate) templates: Repository<JobTemplate>,
    clock: Clock,
    private readonly activity: ActivityRecord,
  ) {
    this.jobs = new OwnedRecords(jobs, clock, JOB_LIST, ['jobTemplate']);
    this.templates = new OwnedRecords(templates, clock, JOB_TEMPLATE_LIST);
  }

  list(principal: Principal, query: Record<string, unknown>): Promise<Page<object>> {
    return this.jobs.page(principal, query, '/api/v2/jobs/', (job) => serializeJob(job, principal));
  }

  async get(principal: Principal, id: number): Promise<Record<string, unknown>> {
    return serializeJob(await this.jobs.visible(principal, id), principal);
  }

  async requirements(principal: Principal, templateId: number): Promise<Record<string, unknown>> {
    return launchRequirements(await this.templates.visible(principal, templateId));
  }

  /**
   * One INSERT copies the template's options into a pending job; a template deleted meanwhile makes
   * it a 404 (OwnedRecords.create). A `limit` the template does not ask for is reported in
   * `ignored_fields`, as AWX does.
   */
  async launch(principal: Principal, templateId: number, body: unknown, trace: RequestTrace): Promise<Record<string, unknown>> {
    const template = await this.templates.changeable(principal, templateId);
    const input = validateBody(LAUNCH_BODY, body);
    if (input.extra_vars !== undefined && !template.askVariablesOnLaunch) {
      // AWX's answer; nothing is recorded.
      throw FieldErrors.of('extra_vars', 'Variables are not allowed on launch. Check the Prompt on Launch setting on the Job Template to include the Extra Variables.');
    }
    const ignored: Record<string, unknown> = {};
    let limit = template.limit;
    if (input.limit !== undefined && template.askLimitOnLaunch) limit = input.limit;
    else if (input.limit !== undefined) ignored.limit = input.limit;
    const job = await this.jobs.create(principal, {
      name: template.name,
      description: template.description,
      jobTemplateId: template.id,
      jobType: template.jobType,
      inventoryId: template.inventoryId,
      projectId: template.projectId,
      playbook: template.playbook,
      limit,
      extraVars: input.extra_vars === undefined ? template.extraVars : mergeVariables(template.extraVars, input.extra_vars),
      launchType: 'manual',
      status: 'pending',
    });
    this.logger.log({ event: 'job_launched', job_id: job.id, job_template_id: template.id, user_id: principal.user.id, ...trace });
    const shown = serializeJob(job, principal);
    this.recordLaunch(job, template, shown, principal);
    return { ...shown, ignored_fields: ignored };
  }

  /** A launch is the stream's `create` of the job (SPEC §23), beside the template it was launched from. */
  private recordLaunch(job: Job, template: JobTemplate, shown: Record<string, unknown>, principal: Principal): void {
    const summary = { id: job.id, name: job.name, description: job.description, status: job.status, failed: shown.failed, elapsed: shown.elapsed, type: 'job', canceled_on: null };
    const fields = { name: job.name, description: job.description, job_template: template.name, job_type: job.jobType, limit: job.limit, launch_type: job.launchType, status: job.status };
    this.activity.record({
      operation: 'create', object1: 'job', changes: { ...fieldsOf(fields), id: job.id },
      objects: [{ kind: 'job', id: job.id, summary }, { kind: 'job_template', id: template.id, summary: namedSummary(template) }], actor: principal.user,
    });
  }
}

/**
 * The variables a job runs with: the template's, overridden key by key by those given at launch when
 * both are JSON objects (as AWX merges them); otherwise the launch's text (YAML) replaces the template's.
 */
function mergeVariables(template: string, launch: string): string {
  const parse = (text: string): Record<string, unknown> | null => {
    try {
      const value = JSON.parse(text || '{}');
      return value && typeof value === 'object' && !Array.isArray(value) ? value : null;
    } catch {
      return null;
    }
  };
  const [base, given] = [parse(template), parse(launch)];
  return base && given ? JSON.stringify({ ...base, ...given }) : launch;
}
