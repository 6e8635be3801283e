import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Clock } from '../common/clock';
import { parseBody, rules } from '../common/fields';
import { OwnedRecords } from '../resources/owned-records';
import type { Page } from '../common/pagination';
import type { Principal } from '../common/principal';
import { JobTemplate } from './job-template.entity';
import { launchRequirements } from './job-template.serializer';
import { LIMIT_MAX } from './job-templates.service';
import { Job } from './job.entity';
import { serializeJob } from './job.serializer';

const LAUNCH_SCHEMA = { limit: { rule: rules.string({ max: LIMIT_MAX, blank: true }) } };

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
  ) {
    this.jobs = new OwnedRecords(jobs, clock, ['jobTemplate']);
    this.templates = new OwnedRecords(templates, clock);
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
  async launch(principal: Principal, templateId: number, body: unknown): Promise<Record<string, unknown>> {
    const template = await this.templates.changeable(principal, templateId);
    const input = parseBody<{ limit: string }>(body, LAUNCH_SCHEMA);
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
      extraVars: template.extraVars,
      launchType: 'manual',
      status: 'pending',
    });
    this.logger.log({ event: 'job_launched', job_id: job.id, job_template_id: template.id, user_id: principal.user.id });
    return { ...serializeJob(job, principal), ignored_fields: ignored };
  }
}
