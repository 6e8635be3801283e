import { CurrentClient, RequestClient } from '../common/client-ip';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { IsNull, Not } from 'typeorm';
import { NotFound, PermissionDenied } from '../common/errors';
import { validateBody } from '../common/validation';
import { IdPipe } from '../common/id.pipe';
import { CurrentPrincipal, Principal } from '../common/principal';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { AccessToken } from './access-token.entity';
import { TokenRevocationService } from './token-revocation.service';
import { CHANGE_TOKEN_BODY, ROTATE_TOKEN_BODY, seesEveryToken, TokenResources } from './token-resources.service';
import { TokenRotationService } from './token-rotation.service';
import { canChangeToken } from './token.serializer';
import { TokensService } from './tokens.service';
import { CurrentTrace, RequestTrace } from '../common/request-context';

/**
 * `/api/v2/tokens/` and the per-user token lists (SPEC §5). Users see and manage their own tokens;
 * superusers everyone's; system auditors read everyone's. Invisible objects are 404.
 */
@Controller('api/v2')
export class TokensController {
  constructor(
    private readonly tokens: TokensService,
    private readonly revocation: TokenRevocationService,
    private readonly rotation: TokenRotationService,
    private readonly resources: TokenResources,
    private readonly users: UsersService,
  ) {}

  @Get('tokens')
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    const where = seesEveryToken(principal.user) ? {} : { userId: principal.user.id };
    return this.resources.page('/api/v2/tokens/', principal, where, query);
  }

  @Post('tokens')
  create(@CurrentPrincipal() principal: Principal, @Body() body: unknown, @CurrentTrace() trace: RequestTrace, @CurrentClient() client: RequestClient) {
    return this.resources.create(principal, trace, body, 'optional', client);
  }

  /** Every token of the system, access and refresh (superusers only). */
  @Delete('tokens')
  @HttpCode(204)
  async revokeAll(@CurrentPrincipal() principal: Principal, @CurrentTrace() trace: RequestTrace) {
    if (!principal.user.isSuperuser) throw new PermissionDenied();
    await this.revocation.revokeAll(`api:${principal.user.username}`, trace);
  }

  @Get('tokens/:id')
  async detail(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    const token = await this.visibleToken(principal, id);
    return (await this.resources.present(principal, [token]))[0];
  }

  @Put('tokens/:id')
  replace(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown, @CurrentTrace() trace: RequestTrace) {
    return this.change(principal, id, body, trace);
  }

  @Patch('tokens/:id')
  patch(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown, @CurrentTrace() trace: RequestTrace) {
    return this.change(principal, id, body, trace);
  }

  @Delete('tokens/:id')
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @CurrentTrace() trace: RequestTrace) {
    const token = await this.visibleToken(principal, id);
    if (!canChangeToken(principal.user, token)) throw new PermissionDenied();
    await this.revocation.revokeAccessToken(token, `api:${principal.user.username}`, trace);
  }

  /**
   * SPEC §15: a new token in this one's place, shown once, and this one revoked at once. Its owner or a
   * superuser, like any change; a write token may rotate itself (a read token cannot POST at all).
   */
  @Post('tokens/:id/rotate')
  async rotate(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown, @CurrentTrace() trace: RequestTrace, @CurrentClient() client: RequestClient) {
    const token = await this.visibleToken(principal, id);
    if (!canChangeToken(principal.user, token) || !token.user) throw new PermissionDenied();
    const input = validateBody(ROTATE_TOKEN_BODY, body ?? {});
    const expiresIn = this.resources.requestedLifetime(input.expires_in);
    const { issued, hasRefresh } = await this.rotation.rotate(token as AccessToken & { user: User }, expiresIn, trace, client);
    return this.resources.presentIssued(principal, issued.accessToken, issued.token, null, hasRefresh);
  }

  @Get('users/:id/tokens')
  async userTokens(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Record<string, unknown>) {
    await this.visibleUser(principal, id);
    return this.resources.page(`/api/v2/users/${id}/tokens/`, principal, { userId: id }, query);
  }

  @Post('users/:id/tokens')
  async createUserToken(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown, @CurrentTrace() trace: RequestTrace, @CurrentClient() client: RequestClient) {
    await this.ownUser(principal, id);
    return this.resources.create(principal, trace, body, 'optional', client);
  }

  /** All of user N's access and refresh tokens: the user themself or a superuser. */
  @Delete('users/:id/tokens')
  @HttpCode(204)
  async revokeUserTokens(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @CurrentTrace() trace: RequestTrace) {
    await this.visibleUser(principal, id);
    if (!principal.user.isSuperuser && principal.user.id !== id) throw new PermissionDenied();
    await this.revocation.revokeForUser(id, `api:${principal.user.username}`, trace);
  }

  @Get('users/:id/personal_tokens')
  async personalTokens(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Record<string, unknown>) {
    await this.visibleUser(principal, id);
    return this.resources.page(`/api/v2/users/${id}/personal_tokens/`, principal, { userId: id, applicationId: IsNull() }, query);
  }

  @Post('users/:id/personal_tokens')
  async createPersonalToken(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown, @CurrentTrace() trace: RequestTrace, @CurrentClient() client: RequestClient) {
    await this.ownUser(principal, id);
    return this.resources.create(principal, trace, body, 'none', client);
  }

  @Get('users/:id/authorized_tokens')
  async authorizedTokens(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Record<string, unknown>) {
    await this.visibleUser(principal, id);
    return this.resources.page(`/api/v2/users/${id}/authorized_tokens/`, principal, { userId: id, applicationId: Not(IsNull()) }, query);
  }

  @Post('users/:id/authorized_tokens')
  async createAuthorizedToken(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown, @CurrentTrace() trace: RequestTrace, @CurrentClient() client: RequestClient) {
    await this.ownUser(principal, id);
    return this.resources.create(principal, trace, body, 'required', client);
  }

  private async change(principal: Principal, id: number, body: unknown, trace: RequestTrace) {
    const token = await this.visibleToken(principal, id);
    if (!canChangeToken(principal.user, token)) throw new PermissionDenied();
    const input = validateBody(CHANGE_TOKEN_BODY, body, { partial: true });
    const updated = await this.tokens.update(token, input, trace);
    return (await this.resources.present(principal, [updated]))[0];
  }

  private async visibleToken(principal: Principal, id: number): Promise<AccessToken> {
    const token = await this.tokens.findById(id);
    if (!token || (!seesEveryToken(principal.user) && token.userId !== principal.user.id)) throw new NotFound();
    return token;
  }

  private async visibleUser(principal: Principal, id: number): Promise<User> {
    if (!seesEveryToken(principal.user) && principal.user.id !== id) throw new NotFound();
    return this.users.getOr404(id);
  }

  /** Tokens are always created for the caller (AWX); naming another user is refused. */
  private async ownUser(principal: Principal, id: number): Promise<void> {
    await this.visibleUser(principal, id);
    if (principal.user.id !== id) throw new PermissionDenied();
  }
}
