import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { FieldErrors } from '../common/errors';
import { LoginExplainer } from '../external-logins/login-explainer.service';
import { ExternalMethods } from '../external-logins/external-methods';
import { CommandError, passwordFrom } from './command-error';
import { CommandRunner } from './command-layer';
import { mapsLines } from './maps-lines';

type Options = { method?: string; server?: string; username?: string; password?: string };

/**
 * `login_test --method NAME` (issue 55), and `ldap_test`, `radius_test` as its names for those methods (SPEC
 * §14, §20): prints, step by step, what a password method's login would do and why (the pipeline's explainer);
 * exit 0 when it would succeed, 1 otherwise. Nothing is written; neither a secret nor the password is printed.
 */
@Injectable()
export class LoginTestCommand extends CommandRunner {
  protected readonly fixedMethod?: string;

  constructor(
    private readonly explainer: LoginExplainer,
    private readonly methods: ExternalMethods,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async run(_: string[], options: Options): Promise<void> {
    const account = this.fixedMethod ?? options.method;
    const explained = this.methods.explained();
    const method = explained.find((m) => m.method.account === account);
    if (!method) throw new CommandError(`--method must be one of ${explained.map((m) => m.method.account).join(', ') || '(no method is registered)'}.`);
    if (!options.username) throw new CommandError('--username is required.');
    const servers = method.explainer!.servers;
    if (options.server !== undefined && !servers?.includes(options.server)) {
      throw new CommandError(servers ? `--server must be one of ${servers.join(', ')}.` : `--server: ${method.method.label} has no servers to choose from.`);
    }
    const password = await passwordFrom(options.password, this.config.managePassword, { confirm: false });
    let answer;
    try {
      answer = await this.explainer.explain(method, options.username, password, options.server);
    } catch (err) {
      if (err instanceof FieldErrors) throw new CommandError(JSON.stringify(err.errors));
      throw err;
    }
    for (const step of answer.steps) console.log(step);
    for (const line of method.explainer!.lines?.(answer) ?? []) console.log(line);
    console.log(`Flags: is_superuser=${answer.flags.is_superuser} is_system_auditor=${answer.flags.is_system_auditor}`);
    for (const line of mapsLines(answer.maps)) console.log(line);
    console.log(answer.would_login ? 'Result: the login would succeed.' : 'Result: the login would be refused.');
    if (!answer.would_login) process.exitCode = 1;
  }
}

/** `ldap_test`: `login_test --method ldap`. */
@Injectable()
export class LdapTestCommand extends LoginTestCommand {
  protected override readonly fixedMethod = 'ldap';
}

/** `radius_test`: `login_test --method radius`. */
@Injectable()
export class RadiusTestCommand extends LoginTestCommand {
  protected override readonly fixedMethod = 'radius';
}
