import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { RadiusExplainer } from '../radius/radius-explainer.service';
import { CommandError, passwordFrom } from './command-error';
import { CommandRunner } from './command-layer';
import { mapsLines } from './maps-lines';

/**
 * `radius_test` (SPEC §20): prints, step by step, what a RADIUS login would do and why; exit 0 when it
 * would succeed, 1 otherwise. Nothing is written, and neither the secret nor the password is printed.
 */
@Injectable()
export class RadiusTestCommand extends CommandRunner {
  constructor(
    private readonly explainer: RadiusExplainer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async run(_: string[], options: { username?: string; password?: string }): Promise<void> {
    if (!options.username) throw new CommandError('--username is required.');
    const password = await passwordFrom(options.password, this.config.managePassword, { confirm: false });
    const answer = await this.explainer.explain(options.username, password);
    for (const step of answer.steps) console.log(step);
    console.log(`Reply: ${answer.reply ?? '(none)'}`);
    const attributes = Object.entries(answer.attributes).map(([name, values]) => `${name}=${values.join(' | ')}`);
    console.log(`Attributes: ${attributes.length ? attributes.join('; ') : '(none)'}`);
    console.log(`Flags: is_superuser=${answer.flags.is_superuser} is_system_auditor=${answer.flags.is_system_auditor}`);
    for (const line of mapsLines(answer.maps)) console.log(line);
    console.log(answer.would_login ? 'Result: the login would succeed.' : 'Result: the login would be refused.');
    if (!answer.would_login) process.exitCode = 1;
  }
}
