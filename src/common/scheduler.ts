import { Injectable, Logger, OnModuleDestroy, Optional } from '@nestjs/common';
import { DatabaseHealth } from '../database/database-health';
import { AuthMetrics } from './auth-metrics';
import { SampledLog } from './sampled-log';
import { NO_REQUEST } from './request-context';

export interface LoopOptions {
  /** Work to run once more after the loop stops (a last flush of buffered writes). */
  final?: () => Promise<unknown>;
}

interface Loop {
  name: string;
  periodMs: number;
  run: () => Promise<unknown>;
  final?: () => Promise<unknown>;
  timer?: NodeJS.Timeout;
  running?: Promise<unknown>;
}

/**
 * The service's background loops, all in one registry: each has a name and a period, is counted in the
 * metrics (`svc_background_runs_total{loop,outcome}`, `svc_background_loop_period_seconds{loop}`), never
 * overlaps itself, and is stopped when the application shuts down: timers cleared, running passes awaited,
 * then each loop's final pass (the last flush). The loops themselves are declared in `background-work.ts`.
 */
@Injectable()
export class Scheduler implements OnModuleDestroy {
  private readonly logger = new Logger('scheduler');
  /** A loop failing pass after pass is one line a minute with its count. */
  private readonly failures = new SampledLog(this.logger, 'warn');
  private readonly loops = new Map<string, Loop>();
  private stopped?: Promise<void>;

  constructor(
    private readonly metrics: AuthMetrics,
    /** A pass failing because the database is unreachable is logged by it, once per interval. */
    @Optional() private readonly health?: DatabaseHealth,
  ) {}

  every(name: string, periodMs: number, run: () => Promise<unknown>, options: LoopOptions = {}): void {
    if (this.loops.has(name)) throw new Error(`background loop ${name} is declared twice`);
    const loop: Loop = { name, periodMs, run, final: options.final };
    loop.timer = setInterval(() => void this.tick(loop), periodMs);
    loop.timer.unref();
    this.loops.set(name, loop);
    this.metrics.backgroundLoopPeriod.set({ loop: name }, periodMs / 1000);
  }

  /** The declared loops and their periods. */
  list(): { name: string; periodMs: number }[] {
    return [...this.loops.values()].map(({ name, periodMs }) => ({ name, periodMs }));
  }

  /** Runs one whole pass now, after the one in flight if any (tests, and a pass that must not wait for its period). */
  async runNow(name: string): Promise<void> {
    const loop = this.loops.get(name);
    if (!loop) return;
    if (loop.running) await loop.running.catch(() => undefined);
    return this.tick(loop);
  }

  private async tick(loop: Loop): Promise<void> {
    if (loop.running || this.stopped) return;
    loop.running = loop.run();
    try {
      await loop.running;
      this.metrics.backgroundRuns.inc({ loop: loop.name, outcome: 'ok' });
    } catch (err) {
      this.metrics.backgroundRuns.inc({ loop: loop.name, outcome: 'failed' });
      if (!this.health?.noteFailure(err, NO_REQUEST)) this.failures.log(loop.name, () => ({ event: 'background_loop_failed', loop: loop.name, error: String((err as Error)?.message ?? err) }));
    } finally {
      loop.running = undefined;
    }
  }

  /** Stops every loop, waits for passes in flight, then runs the final passes; safe to call twice. */
  stopAll(): Promise<void> {
    this.stopped ??= (async () => {
      for (const loop of this.loops.values()) clearInterval(loop.timer);
      await Promise.allSettled([...this.loops.values()].flatMap((l) => (l.running ? [l.running] : [])));
      for (const loop of this.loops.values()) {
        if (!loop.final) continue;
        try {
          await loop.final();
        } catch (err) {
          this.logger.warn({ event: 'background_final_failed', loop: loop.name, error: String((err as Error)?.message ?? err) });
        }
      }
    })();
    return this.stopped;
  }

  onModuleDestroy(): Promise<void> {
    return this.stopAll();
  }
}
