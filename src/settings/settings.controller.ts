import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Put } from '@nestjs/common';
import { PermissionDenied } from '../common/errors';
import { CurrentPrincipal, Principal } from '../common/principal';
import { SettingsService } from './settings.service';

const CATEGORY_NAMES: Record<string, string> = {
  authentication: 'Authentication',
  oidc: 'OpenID Connect',
  saml: 'SAML',
};

/** `/api/v2/settings/<slug>/`: read by superusers and auditors, changed by superusers (AWX rules). */
@Controller('api/v2/settings')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Get()
  list(@CurrentPrincipal() principal: Principal) {
    this.requireReader(principal);
    const results = this.settings.categories().map((slug) => ({
      url: `/api/v2/settings/${slug}/`,
      slug,
      name: CATEGORY_NAMES[slug] ?? slug,
    }));
    return { count: results.length, next: null, previous: null, results };
  }

  @Get(':slug')
  read(@CurrentPrincipal() principal: Principal, @Param('slug') slug: string) {
    this.requireReader(principal);
    return this.settings.read(slug);
  }

  @Put(':slug')
  replace(@CurrentPrincipal() principal: Principal, @Param('slug') slug: string, @Body() body: unknown) {
    this.requireSuperuser(principal);
    return this.settings.update(slug, body, principal.user.username);
  }

  @Patch(':slug')
  patch(@CurrentPrincipal() principal: Principal, @Param('slug') slug: string, @Body() body: unknown) {
    this.requireSuperuser(principal);
    return this.settings.update(slug, body, principal.user.username);
  }

  @Delete(':slug')
  @HttpCode(204)
  async reset(@CurrentPrincipal() principal: Principal, @Param('slug') slug: string) {
    this.requireSuperuser(principal);
    await this.settings.reset(slug, principal.user.username);
  }

  private requireReader(principal: Principal): void {
    if (!principal.user.isSuperuser && !principal.user.isSystemAuditor) throw new PermissionDenied();
  }

  private requireSuperuser(principal: Principal): void {
    if (!principal.user.isSuperuser) throw new PermissionDenied();
  }
}
