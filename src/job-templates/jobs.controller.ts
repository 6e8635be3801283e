import { Controller, Get, Param, Query } from '@nestjs/common';
import { IdPipe } from '../common/id.pipe';
import { CurrentPrincipal, Principal } from '../common/principal';
import { JobsService } from './jobs.service';

/** `/api/v2/jobs/` and `/api/v2/jobs/N/`: read-only, jobs are made by launching a template. */
@Controller('api/v2/jobs')
export class JobsController {
  constructor(private readonly jobs: JobsService) {}

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.jobs.list(principal, query);
  }

  @Get(':id')
  detail(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    return this.jobs.get(principal, id);
  }
}
