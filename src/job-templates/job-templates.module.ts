import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobTemplate } from './job-template.entity';
import { JobTemplatesController } from './job-templates.controller';
import { JobTemplatesService } from './job-templates.service';
import { Job } from './job.entity';
import { JobsController } from './jobs.controller';
import { JobsService } from './jobs.service';

/** Job templates and the jobs launched from them: one module, since a job exists only through its template. */
@Module({
  imports: [TypeOrmModule.forFeature([JobTemplate, Job])],
  controllers: [JobTemplatesController, JobsController],
  providers: [JobTemplatesService, JobsService],
})
export class JobTemplatesModule {}
