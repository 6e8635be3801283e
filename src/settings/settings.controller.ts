import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Put, Query } from '@nestjs/common';
import { BadRequest, PermissionDenied } from '../common/errors';
import { CurrentPrincipal, Principal } from '../common/principal';
import { ALL_SETTINGS, SettingsService } from './settings.service';
import { CurrentTrace, RequestTrace } from '../common/request-context';

/** `/api/v2/settings/<slug>/`: read by superusers and auditors, changed by superusers (AWX rules). */
@Controller('api/v2/settings')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    this.requireReader(principal);
    // A handful of fixed categories, not a table: a filter here would be silently ignored, so it is refused.
    const filters = Object.keys(query).filter((k) => !['page', 'page_size', 'format'].includes(k));
    if (filters.length) throw new BadRequest(`The settings categories cannot be filtered (${filters.join(', ').slice(0, 100)}).`);
    const results = [ALL_SETTINGS, ...this.settings.categories()].map((slug) => ({
      url: `/api/v2/settings/${slug}/`,
      slug,
      name: this.settings.categoryLabel(slug),
    }));
    return { count: results.length, next: null, previous: null, results };
  }

  @Get(':slug')
  read(@CurrentPrincipal() principal: Principal, @Param('slug') slug: string) {
    this.requireReader(principal);
    return this.settings.read(slug);
  }

  @Put(':slug')
  replace(@CurrentPrincipal() principal: Principal, @Param('slug') slug: string, @Body() body: unknown, @CurrentTrace() trace: RequestTrace) {
    this.requireSuperuser(principal);
    return this.settings.update(slug, body, principal.user.username, trace);
  }

  @Patch(':slug')
  patch(@CurrentPrincipal() principal: Principal, @Param('slug') slug: string, @Body() body: unknown, @CurrentTrace() trace: RequestTrace) {
    this.requireSuperuser(principal);
    return this.settings.update(slug, body, principal.user.username, trace);
  }

  @Delete(':slug')
  @HttpCode(204)
  async reset(@CurrentPrincipal() principal: Principal, @Param('slug') slug: string, @CurrentTrace() trace: RequestTrace) {
    this.requireSuperuser(principal);
    await this.settings.reset(slug, principal.user.username, trace);
  }

  private requireReader(principal: Principal): void {
    if (!principal.user.isSuperuser && !principal.user.isSystemAuditor) throw new PermissionDenied();
  }

  private requireSuperuser(principal: Principal): void {
    if (!principal.user.isSuperuser) throw new PermissionDenied();
  }
}
