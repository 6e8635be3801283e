import { Body, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { IdPipe } from '../common/id.pipe';
import { CurrentPrincipal, Principal } from '../common/principal';

/** What the list and detail routes of an organization or a team call (OrganizationsService, TeamsService). */
export interface NamedObjects {
  page(principal: Principal, query: Record<string, unknown>, path: string): Promise<unknown>;
  create(principal: Principal, body: unknown): Promise<unknown>;
  detail(principal: Principal, id: number): Promise<unknown>;
  update(principal: Principal, id: number, body: unknown, partial: boolean): Promise<unknown>;
  remove(principal: Principal, id: number): Promise<void>;
}

/**
 * AWX's list and detail routes of a role-guarded object (SPEC §21): a subclass adds `@Controller('api/v2/<path>')`,
 * its service and the routes that hang off one object. Nest inherits route and parameter decorators, as
 * `resources/owned-resource.controller.ts` does for user-owned objects (whose ownership rules these do not have).
 */
export abstract class NamedObjectController {
  protected abstract readonly objects: NamedObjects;
  /** The list's path, `/api/v2/<path>/`. */
  protected abstract readonly path: string;

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.objects.page(principal, query, this.path);
  }

  @Post()
  create(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.objects.create(principal, body);
  }

  @Get(':id')
  detail(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    return this.objects.detail(principal, id);
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
