import { Body, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { IdPipe } from '../common/id.pipe';
import type { OwnedResource } from './owned-resource.entity';
import type { OwnedResourceService } from './owned-resource.service';
import { CurrentPrincipal, Principal } from '../common/principal';

/**
 * The AWX list/detail routes of an owned resource; a subclass adds `@Controller('api/v2/<path>')`
 * and its service. Nest inherits route and parameter decorators, so each resource has the same
 * routes with the same rules (ids through IdPipe, the caller as a Principal).
 */
export abstract class OwnedResourceController<T extends OwnedResource> {
  protected abstract readonly resources: OwnedResourceService<T>;

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.resources.list(principal, query);
  }

  @Post()
  create(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.resources.create(principal, body);
  }

  @Get(':id')
  detail(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    return this.resources.get(principal, id);
  }

  @Put(':id')
  replace(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown) {
    return this.resources.update(principal, id, body, false);
  }

  @Patch(':id')
  patch(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown) {
    return this.resources.update(principal, id, body, true);
  }

  @Delete(':id')
  @HttpCode(204)
  remove(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    return this.resources.remove(principal, id);
  }
}
