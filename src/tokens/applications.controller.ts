import { CurrentClient, RequestClient } from '../common/client-ip';
import { z } from 'zod';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { FieldErrors, NotFound, PermissionDenied } from '../common/errors';
import { text, validateBody } from '../common/validation';
import { IdPipe } from '../common/id.pipe';
import { queryPage } from '../common/list-query/list-page';
import { APPLICATION_LIST } from './token-lists';
import { CurrentPrincipal, Principal } from '../common/principal';
import { Application, GRANT_TYPES } from './application.entity';
import { canManageApplication, canSeeApplication, serializeApplication } from './application.serializer';
import { ApplicationInput, ApplicationsService } from './applications.service';
import { redirectUriProblems } from './redirect-uris';
import { TokenResources } from './token-resources.service';
import { CurrentTrace, RequestTrace } from '../common/request-context';
import { SERVICE_ACCOUNT } from '../users/account-policy';

/** The body of POST `/api/v2/applications/`. */
const CREATE_BODY = z.object({
  name: text(255),
  description: text(1024, { blank: true }).optional(),
  client_type: z.enum(['confidential', 'public']),
  redirect_uris: text(4096, { blank: true }).optional(),
  authorization_grant_type: z.enum(GRANT_TYPES),
  skip_authorization: z.boolean().optional(),
});
/** Client type and grant type are fixed once the application exists (ignored on change, as DRF does). */
const CHANGE_BODY = CREATE_BODY.omit({ client_type: true, authorization_grant_type: true });

/**
 * `/api/v2/applications/` (SPEC §5). Any user registers applications they own; the owner and
 * superusers manage one; system auditors read all. Skipping the consent page is a superuser's
 * decision: otherwise any user could register a client that silently collects other users' tokens.
 */
@Controller('api/v2/applications')
export class ApplicationsController {
  constructor(
    private readonly applications: ApplicationsService,
    private readonly tokens: TokenResources,
  ) {}

  @Get()
  async list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    const where = principal.user.isSuperuser || principal.user.isSystemAuditor ? {} : { userId: principal.user.id };
    return queryPage(this.applications.listQuery(where), APPLICATION_LIST, query, '/api/v2/applications/', principal.user, (rows) =>
      rows.map((a) => serializeApplication(a, principal.user)),
    );
  }

  @Post()
  async create(@CurrentPrincipal() principal: Principal, @Body() body: unknown, @CurrentTrace() trace: RequestTrace) {
    const input = validateBody(CREATE_BODY, body);
    if (input.skip_authorization && !principal.user.isSuperuser) throw new PermissionDenied();
    // SPEC §15: a service account making more of its kind would outlive its own application's deletion.
    if (input.authorization_grant_type === 'client-credentials' && principal.user.externalAccount === SERVICE_ACCOUNT) throw new PermissionDenied();
    if (input.authorization_grant_type === 'client-credentials' && input.client_type !== 'confidential') {
      throw new FieldErrors({ client_type: ['Applications with grant type client-credentials must be confidential.'] });
    }
    const problems = redirectUriProblems(input.redirect_uris ?? '', input.authorization_grant_type);
    if (problems.length) throw new FieldErrors({ redirect_uris: problems });
    const { application, secret } = await this.applications.create(principal.user.id, input as ApplicationInput, trace);
    return serializeApplication(application, principal.user, secret);
  }

  @Get(':id')
  async detail(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    return serializeApplication(await this.visible(principal, id), principal.user);
  }

  @Put(':id')
  replace(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown, @CurrentTrace() trace: RequestTrace) {
    return this.change(principal, id, body, false, trace);
  }

  @Patch(':id')
  patch(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown, @CurrentTrace() trace: RequestTrace) {
    return this.change(principal, id, body, true, trace);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @CurrentTrace() trace: RequestTrace) {
    const app = await this.visible(principal, id);
    if (!canManageApplication(principal.user, app)) throw new PermissionDenied();
    await this.applications.remove(app, trace);
  }

  @Get(':id/tokens')
  async tokenList(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Record<string, unknown>) {
    await this.visible(principal, id);
    return this.tokens.page(`/api/v2/applications/${id}/tokens/`, principal, { applicationId: id }, query);
  }

  /** A token of this application for the caller (AWX: body `description` and `scope` only). */
  @Post(':id/tokens')
  async createToken(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown, @CurrentTrace() trace: RequestTrace, @CurrentClient() client: RequestClient) {
    const app = await this.visible(principal, id);
    return this.tokens.create(principal, trace, body, 'none', client, app);
  }

  private async change(principal: Principal, id: number, body: unknown, partial: boolean, trace: RequestTrace) {
    const app = await this.visible(principal, id);
    if (!canManageApplication(principal.user, app)) throw new PermissionDenied();
    const input = validateBody(CHANGE_BODY, body, { partial });
    if (input.skip_authorization !== undefined && input.skip_authorization !== app.skipAuthorization && !principal.user.isSuperuser) {
      throw new PermissionDenied();
    }
    const problems = redirectUriProblems(input.redirect_uris ?? app.redirectUris, app.authorizationGrantType);
    if (problems.length) throw new FieldErrors({ redirect_uris: problems });
    const updated = await this.applications.update(app, input, principal.user, trace);
    return serializeApplication(updated, principal.user);
  }

  private async visible(principal: Principal, id: number): Promise<Application> {
    const app = await this.applications.findById(id);
    if (!app || !canSeeApplication(principal.user, app)) throw new NotFound();
    return app;
  }
}
