import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { memberUrl } from './test-db';
import { stopChild } from './stop-child';
import { FIXTURE_POLICY_ENV } from './fixture-policy';

const ROOT = join(__dirname, '..', '..', '..');
export const MAIN = join(ROOT, 'dist', 'src', 'main.js');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'automation-manage.js');

export interface ServiceProcess {
  url: string;
  output: string[];
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the built service as its own process (a second "node"), on a free loopback port. */
export function spawnService(
  env: Record<string, string>,
  opts: { mergeOutput?: boolean; onOutput?: (output: string) => void; timeoutMs?: number } = {},
): Promise<ServiceProcess> {
  // mergeOutput: stderr into stdout's pipe (a shell's 2>&1), so `output` keeps the exact order of the two.
  // onOutput: sees everything written so far at each chunk, before listening (a test acting on what a start says).
  const [command, args] = opts.mergeOutput ? ['/bin/sh', ['-c', 'exec "$0" "$1" 2>&1', process.execPath, MAIN]] : [process.execPath, [MAIN]];
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...FIXTURE_POLICY_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('service did not start:\n' + output.join(''))), opts.timeoutMs ?? 30000);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      opts.onOutput?.(output.join(''));
      const match = /"event":"listening","url":"(http:\/\/[^"]+?)\/"/.exec(output.join(''));
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1],
          output,
          child,
          stop: () => stopChild(child),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    // 'close', not 'exit': a process that fails at start-up writes why just before it exits, and 'exit' can come
    // before its pipes were read to the end (the reason was lost that way on a Galera pass).
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}:\n${output.join('')}`));
    });
  });
}

/** Runs a management command to completion. */
export function runManage(args: string[], env: Record<string, string>, input?: string) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...FIXTURE_POLICY_ENV, ...env },
    encoding: 'utf8',
    input,
    timeout: 60000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Starts several nodes at once; if any fails, the others are stopped before the error is thrown. */
export async function spawnServices(count: number, env: Record<string, string>): Promise<ServiceProcess[]> {
  // On the Galera pass each node attaches to a different member of the cluster.
  const results = await Promise.allSettled(
    Array.from({ length: count }, (_, i) => spawnService(env.DATABASE_URL ? { ...env, DATABASE_URL: memberUrl(env.DATABASE_URL, i) } : env)),
  );
  const started = results.filter((r): r is PromiseFulfilledResult<ServiceProcess> => r.status === 'fulfilled').map((r) => r.value);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((s) => s.stop()));
    throw failed.reason;
  }
  return started;
}
