import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { CommandRunner } from './command-layer';
import { errorMessages, FieldErrors } from '../common/errors';
import { SettingsService } from '../settings/settings.service';
import { LoginLocksService } from '../users/login-locks.service';
import { UsersService } from '../users/users.service';
import { InactiveAccounts } from '../users/inactive-accounts';
import { CommandError, passwordFrom, userDoesNotExist } from './command-error';
import { NO_REQUEST } from '../common/request-context';

/** Field errors from the service, as one readable line. */
export function describeFieldErrors(err: unknown): never {
  if (err instanceof FieldErrors) {
    throw new CommandError(Object.entries(err.errors).map(([f, m]) => `${f}: ${errorMessages(m).join(' ')}`).join('; '));
  }
  throw err;
}

@Injectable()
export class CreateSuperuserCommand extends CommandRunner {
  constructor(
    private readonly users: UsersService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async run(_: string[], options: { username?: string; email?: string; password?: string; skipPolicy?: boolean }): Promise<void> {
    if (!options.username) throw new CommandError('--username is required.');
    const password = await passwordFrom(options.password, this.config.managePassword);
    const user = await this.users
      .create({ username: options.username, email: options.email ?? '', password, is_superuser: true }, NO_REQUEST, { skipPasswordPolicy: options.skipPolicy })
      .catch(describeFieldErrors);
    console.log(`Superuser "${user.username}" created successfully (id ${user.id}).`);
  }
}

@Injectable()
export class ChangePasswordCommand extends CommandRunner {
  constructor(
    private readonly users: UsersService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async run([username]: string[], options: { password?: string; skipPolicy?: boolean }): Promise<void> {
    const user = await this.users.findByUsername(username);
    if (!user) throw userDoesNotExist(username);
    const password = await passwordFrom(options.password, this.config.managePassword);
    await this.users.setPassword(user, password, NO_REQUEST, options.skipPolicy).catch(describeFieldErrors);
    console.log(`Password changed successfully for user '${username}'`);
  }
}

@Injectable()
export class EnableLocalAuthenticationCommand extends CommandRunner {
  constructor(private readonly settings: SettingsService) {
    super();
  }

  async run(_: string[], options: { enable?: boolean; disable?: boolean }): Promise<void> {
    if (options.enable === options.disable) throw new CommandError('Specify exactly one of --enable or --disable.');
    // The escape hatch after a lock-out: written directly, without the API's "remote auth configured" check.
    await this.settings.store('DISABLE_LOCAL_AUTH', !!options.disable, 'manage', NO_REQUEST);
    console.log(`Local authentication ${options.enable ? 'enabled' : 'disabled'}.`);
  }
}

/**
 * `unlock_user --user U [--address IP]` (SPEC §22): every pair of U's name as the throttle reads it, or the
 * one from IP, unlocked and reset. A name no user holds but a pair does (a directory person who never logged
 * in) is unlocked the same way; a name neither holds is an error.
 */
@Injectable()
export class UnlockUserCommand extends CommandRunner {
  constructor(
    private readonly users: UsersService,
    private readonly locks: LoginLocksService,
  ) {
    super();
  }

  async run(_: string[], options: { user?: string; address?: string }): Promise<void> {
    if (!options.user) throw new CommandError('--user is required.');
    const known = !!(await this.users.findByUsernameIgnoringCase(options.user));
    const unlocked = await this.locks.unlockName(options.user, known, { username: null, clientIp: null }, NO_REQUEST, options.address);
    if (unlocked === null) throw new CommandError(`No user or login lock has the name '${options.user}'.`);
    console.log(`Unlocked ${unlocked} address(es) for ${options.user}.`);
  }
}

/**
 * `disable_inactive_users [--dry-run]` (SPEC §22): the background sweep, now; one line per user it deactivates (or,
 * `--dry-run`, would), then the count. Nothing to do is no failure: exit 0.
 */
@Injectable()
export class DisableInactiveUsersCommand extends CommandRunner {
  constructor(private readonly inactive: InactiveAccounts) {
    super();
  }

  async run(_: string[], options: { dryRun?: boolean }): Promise<void> {
    const users = await this.inactive.sweep(NO_REQUEST, !!options.dryRun);
    for (const user of users) console.log(`${options.dryRun ? 'Would deactivate' : 'Deactivated'} ${user.username} (id ${user.id}).`);
    console.log(`${users.length} user(s) ${options.dryRun ? 'would be ' : ''}disabled.`);
  }
}
