import type { INestApplicationContext, Type } from '@nestjs/common';
import { Command as Program } from 'commander';

/**
 * The management commands' own small layer on Nest's application context (issue 34): nest-commander
 * pins a discovery package that wants Nest 11, and it builds the application context (the database
 * connection included) before it can even print its help. Here each command is declared (commands.ts: name,
 * arguments, options); commander parses the line and prints the help from that alone, and the implementation
 * and the application context are loaded only when a command runs.
 */
export interface CommandOption {
  /** commander's syntax: `--user <username>` takes a value, `--all` is a switch. */
  flags: string;
  description: string;
}

export interface CommandDefinition {
  name: string;
  description: string;
  /** Positional arguments in commander's syntax, e.g. `<username>`. */
  arguments?: string;
  options?: CommandOption[];
  /** The class that runs it, a provider of CliModule: loaded only when the command runs. */
  implementation: () => Type<CommandRunner>;
}

/** A command's work, on the services the application context provides. */
export abstract class CommandRunner {
  abstract run(params: string[], options: Record<string, unknown>): Promise<void>;
}

export interface CliOptions {
  name: string;
  version: string;
  commands: CommandDefinition[];
  /** The application context a command runs on, made when one runs. */
  context: () => Promise<INestApplicationContext>;
  /** A failure of a command: what to print, and the exit status. */
  report: (err: Error) => void;
}

/** Parses `argv` (node's, with the script) and runs the command it names; resolves when it is done. */
export async function runCli(argv: string[], cli: CliOptions): Promise<void> {
  const program = new Program(cli.name)
    .version(cli.version)
    // commander's own complaints (unknown command, missing argument) in the one style: "Error: …".
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'Error: ')) })
    .exitOverride();
  for (const definition of cli.commands) {
    const command = program.command(definition.arguments ? `${definition.name} ${definition.arguments}` : definition.name).description(definition.description);
    for (const option of definition.options ?? []) command.option(option.flags, option.description);
    command.action(async (...args: unknown[]) => {
      const params = args.slice(0, command.registeredArguments.length) as string[];
      const app = await cli.context();
      try {
        await app.get(definition.implementation()).run(params, command.opts());
      } finally {
        await app.close();
      }
    });
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') return;
    // commander has printed its own line already; anything else is the command's failure.
    if (code.startsWith('commander.')) process.exitCode = (err as { exitCode?: number }).exitCode || 1;
    else cli.report(err as Error);
  }
}
