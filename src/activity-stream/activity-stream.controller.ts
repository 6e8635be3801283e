import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { StreamKind } from '../common/activity-record';
import { IdPipe } from '../common/id.pipe';
import { CurrentPrincipal, Principal } from '../common/principal';
import { STREAM_KINDS } from './activity-stream-list';
import { ActivityStreamService } from './activity-stream.service';

/** The per-object lists' paths (`related.activity_stream` of each kind), by the kind they read. */
export const PER_OBJECT_PATHS = Object.entries(STREAM_KINDS).map(([kind, { path }]) => ({ kind: kind as StreamKind, route: `${path}/:id/activity_stream` }));

/** Every route of the stream under `api/v2`, each read-only (readOnlyRoutes answers the writes with 405). */
export const ACTIVITY_STREAM_PATHS = ['activity_stream', 'activity_stream/:id', ...PER_OBJECT_PATHS.map((p) => p.route)];

/**
 * AWX's activity stream (SPEC §23): the list, one entry, and each object's list, within what the caller may read
 * (AWX's ActivityStreamAccess; a hidden entry or object is 404).
 */
@Controller('api/v2')
export class ActivityStreamController {
  constructor(private readonly stream: ActivityStreamService) {}

  @Get('activity_stream')
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.stream.page(principal.user, query, '/api/v2/activity_stream/');
  }

  @Get('activity_stream/:id')
  detail(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    return this.stream.one(principal.user, id);
  }

  @Get(PER_OBJECT_PATHS.map((p) => p.route))
  async ofObject(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Record<string, unknown>, @Req() req: FastifyRequest) {
    // The route says the kind: `/api/v2/<kind's path>/<id>/activity_stream/`.
    const path = req.url.split('?')[0].split('/')[3];
    const { kind } = PER_OBJECT_PATHS.find((p) => p.route.startsWith(`${path}/`))!;
    await this.stream.assertReadable(principal.user, kind, id);
    return this.stream.page(principal.user, query, `/api/v2/${path}/${id}/activity_stream/`, { kind, id });
  }
}
