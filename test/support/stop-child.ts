import type { ChildProcess } from 'node:child_process';

/** Stops a server a test started, by its pid (SIGTERM), and waits for it to exit; nothing if it is gone already. */
export function stopChild(child: ChildProcess | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
