import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { PermissionDenied } from '../common/errors';
import { CurrentPrincipal, Principal } from '../common/principal';
import { MapsDryRun } from './maps-dry-run.service';

/**
 * `POST /api/v2/settings/maps/test/` (SPEC §21): superusers only, as the settings it reads and the claims it
 * shows are theirs to see.
 */
@Controller('api/v2/settings/maps')
export class MapsDryRunController {
  constructor(private readonly dryRun: MapsDryRun) {}

  @Post('test')
  @HttpCode(200)
  test(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    if (!principal.user.isSuperuser) throw new PermissionDenied();
    return this.dryRun.run(body);
  }
}
