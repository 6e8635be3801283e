import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply as Response } from 'fastify';
import { IdPipe } from '../common/id.pipe';
import { ObjectRoutesController } from '../common/object-routes.controller';
import { CurrentPrincipal, Principal } from '../common/principal';
import { JobTemplatesService } from './job-templates.service';
import { JobsService } from './jobs.service';
import { CurrentTrace, RequestTrace } from '../common/request-context';

/** `/api/v2/job_templates/` (+`N/`) and the launch of seed §4. */
@Controller('api/v2/job_templates')
export class JobTemplatesController extends ObjectRoutesController {
  constructor(
    protected readonly objects: JobTemplatesService,
    private readonly jobs: JobsService,
  ) {
    super();
  }

  @Get(':id/launch')
  requirements(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    return this.jobs.requirements(principal, id);
  }

  /** 201 with the job and its address in `Location`, as AWX answers a launch. */
  @Post(':id/launch')
  @HttpCode(201)
  async launch(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IdPipe) id: number,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
    @CurrentTrace() trace: RequestTrace,
  ) {
    const job = await this.jobs.launch(principal, id, body, trace);
    res.header('Location', job.url as string);
    return job;
  }
}
