import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ClientAddress } from '../common/client-ip';
import { FieldErrors, PermissionDenied } from '../common/errors';
import { REQUIRED, validateBody } from '../common/validation';
import { IdPipe } from '../common/id.pipe';
import { queryPage } from '../common/list-query/list-page';
import { USER_LIST } from './user-list';
import { CurrentPrincipal, Principal } from '../common/principal';
import { LocalCredentialsService } from './local-credentials.service';
import { UserPresenter } from './user-presenter';
import { UserVisibility } from './user-visibility';
import { VisibleUser } from './visible-user';
import { USER_BODY } from './user-body';
import { User } from './user.entity';
import { canDeleteUser, canEditUser } from './user.serializer';
import { UsersService } from './users.service';
import { BreakGlass } from './break-glass';
import { CurrentTrace, RequestTrace } from '../common/request-context';

const ADMIN_ONLY_FIELDS = ['is_superuser', 'is_system_auditor', 'is_active'] as const;


@Controller('api/v2')
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly credentials: LocalCredentialsService,
    private readonly presenter: UserPresenter,
    private readonly visibility: UserVisibility,
    private readonly breakGlass: BreakGlass,
    private readonly visible: VisibleUser,
  ) {}

  private serialize(principal: Principal, users: User[]): Promise<Record<string, unknown>[]> {
    return this.presenter.present(principal, users);
  }

  private serializeOne(principal: Principal, user: User): Promise<Record<string, unknown>> {
    return this.presenter.presentOne(principal, user);
  }

  /** Everyone to superusers and system auditors; to anyone else themselves and whom SPEC §21 shows them. */
  @Get('users')
  async list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    const visible = await this.visibility.of(principal.user);
    return queryPage(this.users.visibleQuery(visible), USER_LIST, query, '/api/v2/users/', principal.user, (rows) => this.serialize(principal, rows));
  }

  /** `/api/v2/me/`: a paginated list of one, as AWX answers it; filters apply to it like any list. */
  @Get('me')
  async me(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    if (Object.keys(query).length) {
      return queryPage(this.users.listQuery(principal.user.id), USER_LIST, query, '/api/v2/me/', principal.user, (rows) => this.serialize(principal, rows));
    }
    // No query: the user row was read by this very request's authentication, no second read.
    return { count: 1, next: null, previous: null, results: [await this.serializeOne(principal, principal.user)] };
  }

  @Post('users')
  async create(@CurrentPrincipal() principal: Principal, @Body() body: unknown, @CurrentTrace() trace: RequestTrace) {
    if (!principal.user.isSuperuser) throw new PermissionDenied();
    const input = validateBody(USER_BODY, body);
    const user = await this.users.create(input, trace);
    return this.serializeOne(principal, user);
  }

  @Get('users/:id')
  async detail(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    return this.serializeOne(principal, await this.visibleUser(principal, id));
  }

  @Put('users/:id')
  replace(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown, @ClientAddress() clientIp: string, @CurrentTrace() trace: RequestTrace) {
    return this.change(principal, id, body, false, clientIp, trace);
  }

  @Patch('users/:id')
  patch(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown, @ClientAddress() clientIp: string, @CurrentTrace() trace: RequestTrace) {
    return this.change(principal, id, body, true, clientIp, trace);
  }

  @Delete('users/:id')
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @CurrentTrace() trace: RequestTrace) {
    const target = await this.visibleUser(principal, id);
    if (!canDeleteUser(principal.user, target)) throw new PermissionDenied();
    await this.users.remove(target, trace);
  }

  private async change(principal: Principal, id: number, body: unknown, partial: boolean, clientIp: string, trace: RequestTrace) {
    const target = await this.visibleUser(principal, id);
    if (!canEditUser(principal.user, target)) throw new PermissionDenied();
    const input = validateBody(USER_BODY, body, { partial });
    if (!principal.user.isSuperuser) {
      for (const field of ADMIN_ONLY_FIELDS) {
        const current = { is_superuser: target.isSuperuser, is_system_auditor: target.isSystemAuditor, is_active: target.isActive }[field];
        if (input[field] !== undefined && input[field] !== current) throw new PermissionDenied();
      }
    }
    if (principal.user.id === target.id && input.is_active === false) throw new PermissionDenied('You cannot deactivate your own account.');
    await this.breakGlass.refuseExpiryWrite(principal.user, target, input.account_expires);
    this.users.refuseManagedChanges(target, input);
    // "$encrypted$" or an empty password keeps the current one (AWX): only a real change needs the old one.
    const changesPassword = input.password !== undefined && input.password !== '' && input.password !== '$encrypted$' && !target.externalAccount;
    if (changesPassword && principal.user.id === target.id) await this.confirmOldPassword(target, input.old_password, clientIp, trace);
    const keepSessionId = principal.method === 'session' && principal.user.id === target.id ? principal.credentialId : undefined;
    const updated = await this.users.update(target, input, trace, keepSessionId);
    return this.serializeOne(principal, updated);
  }

  /**
   * Changing one's own password needs the current one (SPEC §8), whoever asks and however they
   * authenticated; a wrong one counts for the login throttle. A superuser setting another user's
   * password does not send it.
   */
  private async confirmOldPassword(user: User, old: string | undefined, clientIp: string, trace: RequestTrace): Promise<void> {
    if (!old) throw FieldErrors.of('old_password', REQUIRED);
    if (!(await this.credentials.confirmCurrent(user, old, clientIp, trace))) {
      throw FieldErrors.of('old_password', 'Your old password was entered incorrectly. Please enter it again.');
    }
  }

  /** Objects a caller may not see are 404, so ids do not reveal which users exist. */
  private visibleUser(principal: Principal, id: number): Promise<User> {
    return this.visible.getOr404(principal.user, id);
  }
}
