import { Body, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { IdPipe } from './id.pipe';
import { CurrentPrincipal, Principal } from './principal';

/** What AWX's list and detail routes of one kind of object call: its service, which holds every rule. */
export interface ObjectRoutes {
  list(principal: Principal, query: Record<string, unknown>): Promise<unknown>;
  create(principal: Principal, body: unknown): Promise<unknown>;
  get(principal: Principal, id: number): Promise<unknown>;
  update(principal: Principal, id: number, body: unknown, partial: boolean): Promise<unknown>;
  remove(principal: Principal, id: number): Promise<void>;
}

/**
 * AWX's list and detail routes (`GET`/`POST` on the list, `GET`/`PUT`/`PATCH`/`DELETE` on one object); a subclass
 * adds `@Controller('api/v2/<path>')`, its service as `objects`, and the routes that hang off one object. Nest
 * inherits route and parameter decorators, so every kind of object has the same routes with the same rules (ids
 * through IdPipe, the caller as a Principal): the owned resources (hosts, credentials, job templates) and the
 * role-guarded objects (organizations, teams).
 */
export abstract class ObjectRoutesController {
  protected abstract readonly objects: ObjectRoutes;

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.objects.list(principal, query);
  }

  @Post()
  create(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.objects.create(principal, body);
  }

  @Get(':id')
  detail(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    return this.objects.get(principal, id);
  }

  @Put(':id')
  replace(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown) {
    return this.objects.update(principal, id, body, false);
  }

  @Patch(':id')
  patch(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown) {
    return this.objects.update(principal, id, body, true);
  }

  @Delete(':id')
  @HttpCode(204)
  remove(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    return this.objects.remove(principal, id);
  }
}
