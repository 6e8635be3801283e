import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply as Response } from 'fastify';
import { AuthMetrics } from '../common/auth-metrics';
import { PermissionDenied } from '../common/errors';
import { AnonymousIfSetting } from '../common/public.decorator';
import { CurrentPrincipal, Principal } from '../common/principal';

/** `/api/v2/metrics/`: Prometheus text for superusers and auditors, or anyone while ALLOW_METRICS_FOR_ANONYMOUS_USERS. */
@Controller('api/v2/metrics')
export class MetricsController {
  constructor(private readonly metrics: AuthMetrics) {}

  @Get()
  @AnonymousIfSetting('ALLOW_METRICS_FOR_ANONYMOUS_USERS')
  async scrape(@CurrentPrincipal() principal: Principal | undefined, @Res() res: Response) {
    if (principal && !principal.user.isSuperuser && !principal.user.isSystemAuditor) throw new PermissionDenied();
    res.code(200).type(this.metrics.registry.contentType).send(await this.metrics.render());
  }
}
