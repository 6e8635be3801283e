import { z } from 'zod';
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ClientAddress } from '../common/client-ip';
import { FieldErrors, NotFound, PermissionDenied } from '../common/errors';
import { REQUIRED, text, validateBody } from '../common/validation';
import { IdPipe } from '../common/id.pipe';
import { queryPage } from '../common/list-query';
import { readsEverything, USER_LIST } from './user-list';
import { CurrentPrincipal, Principal } from '../common/principal';
import { LocalCredentialsService } from './local-credentials.service';
import { UserIdentities } from './user-identities';
import { User } from './user.entity';
import { canDeleteUser, canEditUser, serializeUser } from './user.serializer';
import { UsersService } from './users.service';
import { CurrentTrace, RequestTrace } from '../common/request-context';

/** The body of POST, PUT and (partial) PATCH `/api/v2/users/…`, with AWX's field lengths. */
const USER_BODY = z.object({
  username: text(150),
  password: text(1024, { blank: true }).optional(),
  first_name: text(150, { blank: true }).optional(),
  last_name: text(150, { blank: true }).optional(),
  email: text(254, { blank: true }).optional(),
  is_superuser: z.boolean().optional(),
  is_system_auditor: z.boolean().optional(),
  is_active: z.boolean().optional(),
  // Checked only when it is needed (an own password change): anything but a string counts as absent.
  old_password: z.string().optional().catch(undefined),
});

const ADMIN_ONLY_FIELDS = ['is_superuser', 'is_system_auditor', 'is_active'] as const;


@Controller('api/v2')
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly credentials: LocalCredentialsService,
    private readonly identities: UserIdentities,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Serialised users with their linked external identities (`auth`), one lookup for the page. */
  private async serialize(principal: Principal, users: User[]): Promise<Record<string, unknown>[]> {
    // Only external users have linked identities: a page of local users costs no lookup.
    const external = users.filter((u) => u.externalAccount).map((u) => u.id);
    const auth = external.length ? await this.identities.of(external) : new Map<number, never[]>();
    return users.map((u) =>
      serializeUser(u, { viewer: principal.user, oauth2Enabled: this.config.oauth2ProviderEnabled, auth: auth.get(u.id) ?? [] }),
    );
  }

  private async serializeOne(principal: Principal, user: User): Promise<Record<string, unknown>> {
    return (await this.serialize(principal, [user]))[0];
  }

  @Get('users')
  async list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    const onlyId = readsEverything(principal.user) ? undefined : principal.user.id;
    return queryPage(this.users.listQuery(onlyId), USER_LIST, query, '/api/v2/users/', principal.user, (rows) => this.serialize(principal, rows));
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
  private async visibleUser(principal: Principal, id: number): Promise<User> {
    if (!readsEverything(principal.user) && principal.user.id !== id) throw new NotFound();
    return this.users.getOr404(id);
  }
}
