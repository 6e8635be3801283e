/** Where the report goes: the service's logger (main.ts's JsonLogger). */
interface WarnLogger {
  warn(message: unknown, context?: string): void;
}

/** After this long without listening, and as often again, a start says what it is waiting for. */
export const START_REPORT_MS = 10_000;

let step = 'loading the application';

/**
 * Names what the start is doing now: the database module's steps, then main.ts's. It lives in database/ because
 * the slow steps are the database's, and database/ imports nothing above it (docs/architecture.md).
 */
export function startStep(name: string): void {
  step = name;
}

/**
 * A start that has not listened after START_REPORT_MS writes one `start_slow` line, and one more each
 * START_REPORT_MS, naming its current step: a node waiting for a Galera member that is catching up, or for the
 * migration lease another node holds, says so instead of staying silent until it starts or gives up. Call the
 * returned function once listening (or failed).
 */
export function reportSlowStart(logger: WarnLogger): () => void {
  const started = Date.now();
  const timer = setInterval(() => {
    logger.warn({ event: 'start_slow', waiting_for: step, elapsed_s: Math.round((Date.now() - started) / 1000) }, 'bootstrap');
  }, START_REPORT_MS);
  timer.unref();
  return () => clearInterval(timer);
}
