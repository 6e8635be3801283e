import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ClientAddress } from '../common/client-ip';
import { PermissionDenied } from '../common/errors';
import { IdPipe } from '../common/id.pipe';
import { queryPage } from '../common/list-query/list-page';
import { CurrentPrincipal, Principal } from '../common/principal';
import { CurrentTrace, RequestTrace } from '../common/request-context';
import { LockClock } from './login-locks.repository';
import { LOGIN_LOCK_LIST, LoginLocksService } from './login-locks.service';
import { readsEverything } from './user-list';
import type { User } from './user.entity';
import { UsersService } from './users.service';

/**
 * SPEC §22's `login_locks`: superusers and system auditors read them (anyone else 403, whatever the id);
 * superusers unlock them (auditors 403).
 */
@Controller('api/v2')
export class LoginLocksController {
  constructor(
    private readonly locks: LoginLocksService,
    private readonly users: UsersService,
  ) {}

  @Get('login_locks')
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    refuseReaders(principal);
    return this.page(principal, this.locks.at(), query, '/api/v2/login_locks/');
  }

  @Get('login_locks/:id')
  async detail(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    refuseReaders(principal);
    const at = this.locks.at();
    return (await this.locks.present(at, [await this.locks.getOr404(at, id)]))[0];
  }

  @Delete('login_locks/:id')
  @HttpCode(204)
  async unlock(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @CurrentTrace() trace: RequestTrace, @ClientAddress() address: string) {
    refuseUnlockers(principal);
    await this.locks.unlockOne(await this.locks.getOr404(this.locks.at(), id), { username: principal.user.username, clientIp: address }, trace);
  }

  @Get('users/:id/login_locks')
  async ofUser(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Record<string, unknown>) {
    refuseReaders(principal);
    const user = await this.users.getOr404(id);
    return this.page(principal, this.locks.at(), query, `/api/v2/users/${id}/login_locks/`, user);
  }

  @Delete('users/:id/login_locks')
  @HttpCode(204)
  async unlockUser(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @CurrentTrace() trace: RequestTrace, @ClientAddress() address: string) {
    refuseUnlockers(principal);
    const user = await this.users.getOr404(id);
    await this.locks.unlockName(user.username, true, { username: principal.user.username, clientIp: address }, trace);
  }

  private page(principal: Principal, at: LockClock, query: Record<string, unknown>, path: string, user?: User) {
    return queryPage(this.locks.listQuery(at, user), LOGIN_LOCK_LIST, query, path, principal.user, (rows) => this.locks.present(at, rows));
  }
}

function refuseReaders(principal: Principal): void {
  if (!readsEverything(principal.user)) throw new PermissionDenied();
}

function refuseUnlockers(principal: Principal): void {
  if (!principal.user.isSuperuser) throw new PermissionDenied();
}
