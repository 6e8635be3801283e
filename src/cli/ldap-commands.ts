import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { LdapLogins } from '../ldap/ldap-logins.service';
import { DIRECTORY_NAMES, DirectoryName } from '../ldap/ldap-settings';
import { CommandError, passwordFrom } from './command-error';
import { mapsLines } from './maps-lines';
import { CommandRunner } from './command-layer';

/**
 * `ldap_test` (SPEC §14): prints, step by step, what a login would do and why; exit 0 when it would
 * succeed, 1 otherwise. Nothing is written.
 */
@Injectable()
export class LdapTestCommand extends CommandRunner {
  constructor(
    private readonly logins: LdapLogins,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async run(_: string[], options: { server?: string; username?: string; password?: string }): Promise<void> {
    if (!options.username) throw new CommandError('--username is required.');
    if (options.server !== undefined && !(DIRECTORY_NAMES as readonly string[]).includes(options.server)) {
      throw new CommandError(`--server must be one of ${DIRECTORY_NAMES.join(', ')}.`);
    }
    const password = await passwordFrom(options.password, this.config.managePassword, { confirm: false });
    const answer = await this.logins.explain(options.server as DirectoryName | undefined, options.username, password);
    for (const step of answer.steps) console.log(step);
    console.log(`DN: ${answer.dn ?? '(none)'}`);
    console.log(`Groups: ${answer.groups.length ? answer.groups.join('; ') : '(none)'}`);
    console.log(`Flags: is_superuser=${answer.flags.is_superuser} is_system_auditor=${answer.flags.is_system_auditor}`);
    for (const line of mapsLines(answer.maps)) console.log(line);
    console.log(answer.would_login ? 'Result: the login would succeed.' : 'Result: the login would be refused.');
    if (!answer.would_login) process.exitCode = 1;
  }
}
