import { createInterface } from 'node:readline';

/** A failure the operator caused; printed as one line, exit status 1. */
export class CommandError extends Error {}

/** The one wording of every command for a user name that matches no user. */
export function userDoesNotExist(username: string): CommandError {
  return new CommandError(`The user '${username}' does not exist.`);
}

/**
 * Password for a command: the flag, else MANAGE_PASSWORD from the environment (`fromEnv`, the config's
 * managePassword), else a prompt (not echoed; typed twice unless `confirm` is false) when a terminal is attached.
 */
export async function passwordFrom(flag: string | undefined, fromEnv: string | undefined, opts: { confirm?: boolean } = {}): Promise<string> {
  if (flag) return flag;
  if (fromEnv) return fromEnv;
  if (!process.stdin.isTTY) throw new CommandError('No password given: use --password, MANAGE_PASSWORD, or run in a terminal to be prompted.');
  const first = await promptHidden('Password: ');
  // A password being set is typed twice; one being tried (ldap_test) once.
  const second = opts.confirm === false ? first : await promptHidden('Password (again): ');
  if (first !== second) throw new CommandError("Passwords don't match.");
  if (!first) throw new CommandError('The password may not be blank.');
  return first;
}

function promptHidden(question: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
    const output = rl as unknown as { _writeToOutput: (s: string) => void };
    output._writeToOutput = (s: string) => {
      if (s.includes(question)) process.stdout.write(question);
    };
    rl.question(question, (answer) => {
      rl.close();
      process.stdout.write('\n');
      resolve(answer);
    });
  });
}
