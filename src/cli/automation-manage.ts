#!/usr/bin/env node
import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { ConfigError } from '../config/app-config';
import { DomainError } from '../common/errors';
import { JsonLogger } from '../common/json-logger';
import { CliModule } from './cli.module';
import { CommandError } from './command-error';

/** `automation-manage <command> [flags]` (`npm run manage -- …`): exit 0 on success, one line and exit 1 on failure. The file is named after the bin, so the help and errors say `automation-manage`. */
function report(err: Error): void {
  const known = err instanceof CommandError || err instanceof ConfigError || err instanceof DomainError;
  process.stderr.write(`Error: ${known ? err.message : `unexpected failure: ${err.message}`}\n`);
  process.exitCode = 1;
}

CommandFactory.run(CliModule, {
  logger: new JsonLogger('warn'),
  cliName: 'automation-manage',
  serviceErrorHandler: report,
  errorHandler: (err: Error & { exitCode?: number; code?: string }) => {
    // commander has already printed its own one-line message (unknown option, missing argument...)
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') {
      process.exitCode = 0;
      return;
    }
    process.exitCode = err.exitCode && err.exitCode !== 0 ? err.exitCode : 1;
  },
}).catch((err) => report(err));
