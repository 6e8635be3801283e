import cluster from 'node:cluster';
import type { JsonLogger } from './common/json-logger';

/** How long the primary waits for every worker to drain and exit after SIGTERM before SIGKILL. */
const STOP_TIMEOUT_MS = 15_000;
/** A crashed worker is replaced after this pause, so a crash loop does not spin. */
const RESTART_DELAY_MS = 1000;

/**
 * WEB_CONCURRENCY=N (N > 1): this process is the primary of N server processes sharing the port through
 * node:cluster (the primary accepts and hands connections round-robin). The first worker starts alone
 * (it runs the migrations and creates the bootstrap superuser), the others once it listens. A worker that
 * crashes is replaced; one that fails while starting stops the whole service with its exit code. SIGTERM
 * or SIGINT is passed to every worker, each drains its requests and flushes its batched writes (src/main.ts),
 * and the primary exits 0 when all have exited.
 */
export function runWebWorkers(count: number, logger: JsonLogger): void {
  let stopping = false;
  let started = false;
  const first = cluster.fork();
  first.once('listening', () => {
    started = true;
    for (let i = 1; i < count; i++) cluster.fork();
    logger.log({ event: 'web_workers_started', workers: count, primary_pid: process.pid }, 'cluster');
  });

  const live = () => Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (!live().length) process.exit(0);
      return;
    }
    // The first worker failing before it listens (no database, a bad migration): the service cannot start.
    if (!started) {
      logger.error({ event: 'web_worker_failed_to_start', pid: worker.process.pid, code }, undefined, 'cluster');
      process.exit(code || 1);
    }
    logger.warn({ event: 'web_worker_exited', pid: worker.process.pid, code, signal, restarting_in_ms: RESTART_DELAY_MS }, 'cluster');
    setTimeout(() => {
      if (!stopping) cluster.fork();
    }, RESTART_DELAY_MS);
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.log({ event: 'shutdown', signal, workers: live().length }, 'cluster');
    for (const worker of live()) worker.process.kill('SIGTERM');
    if (!live().length) process.exit(0);
    // Workers that did not drain in time are killed, and the exit code says so.
    setTimeout(() => {
      for (const worker of live()) worker.process.kill('SIGKILL');
      logger.error({ event: 'web_workers_killed', workers: live().length }, undefined, 'cluster');
      process.exit(1);
    }, STOP_TIMEOUT_MS).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
