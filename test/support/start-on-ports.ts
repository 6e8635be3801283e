import { ChildProcess, spawn } from 'node:child_process';

/**
 * Starts a server of a test's own on ports chosen free a moment before (`freePort`). Other test files run
 * beside this one and may bind such a port in between: when `startOnce` fails with a message that `portTaken`
 * matches, a first start calls `newPorts` and tries again (at most three times); a restart keeps its ports
 * (what the test configured names them) and waits for them to come free, for at most 10 s. Any other failure,
 * or the last, is thrown with the server's own words. `startOnce` answers undefined once the server is up.
 */
export async function startOnPorts(options: {
  firstStart: boolean;
  startOnce: () => Promise<string | undefined>;
  portTaken: RegExp;
  newPorts: () => Promise<void>;
}): Promise<void> {
  const deadline = Date.now() + 10000;
  for (let attempt = 1; ; attempt++) {
    const failure = await options.startOnce();
    if (!failure) return;
    if (!options.portTaken.test(failure)) throw new Error(failure);
    if (options.firstStart) {
      if (attempt >= 3) throw new Error(failure);
      await options.newPorts();
    } else {
      if (Date.now() > deadline) throw new Error(failure);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** A server process a test started, watched: what it wrote to stderr, and whether it is gone. */
export interface WatchedServer {
  child: ChildProcess;
  /** The last 4 000 characters it wrote to stderr (where such servers write their errors). */
  stderr(): string;
  /** Undefined while it runs; once it is gone, how (a spawn error, or its exit), after its stderr is read to the end. */
  gone(): Promise<string | undefined>;
}

export function spawnServer(command: string, args: string[]): WatchedServer {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  // 'close' comes after the process exited and its stderr is read to the end.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    child,
    stderr: () => stderr,
    gone: async () => {
      if (spawnError) return `did not start: ${spawnError.message}`;
      if (child.exitCode === null && child.signalCode === null) return undefined;
      await closed;
      return `exited with ${child.exitCode ?? child.signalCode}`;
    },
  };
}
