import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { ConfigError } from '../config/app-config';
import { DomainError } from '../common/errors';
import { JsonLogger } from '../common/json-logger';
import { CliModule } from './cli.module';
import { CommandError } from './command-error';

/** One line on stderr, `Error: <message>`, and exit status 1. */
function report(err: Error): void {
  const known = err instanceof CommandError || err instanceof ConfigError || err instanceof DomainError;
  process.stderr.write(`Error: ${known ? err.message : `unexpected failure: ${err.message}`}\n`);
  process.exitCode = 1;
}

/** The commands of CliModule through nest-commander (loaded only when a command, or the help, is asked for). */
export function runCommands(version: string): Promise<void> {
  return CommandFactory.run(CliModule, {
    logger: new JsonLogger('warn'),
    cliName: 'automation-manage',
    version,
    // commander's own complaints (unknown command, missing argument) in the one style: "Error: …".
    outputConfiguration: { outputError: (text, write) => write(text.replace(/^error: /, 'Error: ')) },
    serviceErrorHandler: report,
    errorHandler: (err: Error & { exitCode?: number; code?: string }) => {
      // commander has already printed its own one-line message (unknown option, missing argument...)
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') {
        process.exitCode = 0;
        return;
      }
      process.exitCode = err.exitCode && err.exitCode !== 0 ? err.exitCode : 1;
    },
  }).catch((err: Error) => report(err));
}
