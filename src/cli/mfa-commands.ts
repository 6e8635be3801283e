import { Injectable } from '@nestjs/common';
import { NO_REQUEST } from '../common/request-context';
import { MfaService } from '../mfa/mfa.service';
import { UsersService } from '../users/users.service';
import { CommandRunner } from './command-layer';
import { CommandError, userDoesNotExist } from './command-error';

/** `reset_mfa --user U`: every second factor of U removed, for a user locked out of them (SPEC §16). */
@Injectable()
export class ResetMfaCommand extends CommandRunner {
  constructor(
    private readonly users: UsersService,
    private readonly mfa: MfaService,
  ) {
    super();
  }

  async run(_: string[], options: { user?: string }): Promise<void> {
    if (!options.user) throw new CommandError('--user is required.');
    const user = await this.users.findByUsername(options.user);
    if (!user) throw userDoesNotExist(options.user);
    await this.mfa.resetAll(user, 'manage', NO_REQUEST);
    console.log(`Two-step verification reset for user '${user.username}': every authenticator app, security key and recovery code removed.`);
  }
}
