import { ConfigError } from '../config/app-config';
import { DomainError } from '../common/errors';
import { JsonLogger } from '../common/json-logger';
import { CommandError } from './command-error';
import { runCli } from './command-layer';
import { COMMANDS } from './commands';

/** One line on stderr, `Error: <message>`, and exit status 1. */
function report(err: Error): void {
  const known = err instanceof CommandError || err instanceof ConfigError || err instanceof DomainError;
  process.stderr.write(`Error: ${known ? err.message : `unexpected failure: ${err.message}`}\n`);
  process.exitCode = 1;
}

/** The management commands; Nest and CliModule are loaded only for a command that runs. */
export function runCommands(version: string): Promise<void> {
  return runCli(process.argv, {
    name: 'automation-manage',
    version,
    commands: COMMANDS,
    context: async () => {
      require('reflect-metadata');
      const { NestFactory } = require('@nestjs/core') as typeof import('@nestjs/core');
      const { CliModule } = require('./cli.module') as typeof import('./cli.module');
      return NestFactory.createApplicationContext(CliModule, { logger: new JsonLogger('warn'), abortOnError: false });
    },
    report,
  });
}
