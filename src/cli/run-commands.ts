import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ConfigError } from '../config/app-config';
import { DomainError } from '../common/errors';
import { JsonLogger } from '../common/json-logger';
import { CliModule } from './cli.module';
import { CommandError } from './command-error';
import { runCli } from './command-layer';

/** One line on stderr, `Error: <message>`, and exit status 1. */
function report(err: Error): void {
  const known = err instanceof CommandError || err instanceof ConfigError || err instanceof DomainError;
  process.stderr.write(`Error: ${known ? err.message : `unexpected failure: ${err.message}`}\n`);
  process.exitCode = 1;
}

/** The commands of CliModule; the application context is made only for a command that runs. */
export function runCommands(version: string): Promise<void> {
  return runCli(process.argv, {
    name: 'automation-manage',
    version,
    context: () => NestFactory.createApplicationContext(CliModule, { logger: new JsonLogger('warn'), abortOnError: false }),
    report,
  });
}
