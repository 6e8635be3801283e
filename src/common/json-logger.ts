import { LoggerService } from '@nestjs/common';

export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** The contexts of Nest's start-up messages (modules initialised, routes mapped, application started). */
const NEST_START_UP = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);

/** Where log lines go; tests swap it to capture lines and scan them for secrets. */
export const logSink: { write: (line: string) => void } = { write: (line) => void process.stdout.write(line + '\n') };

/**
 * What sees every log line whatever LOG_LEVEL says (the log forwarder, SPEC §23: LOG_AGGREGATOR_LEVEL decides
 * what it forwards); a tap returns at once, and is not told a line of its own `context`.
 */
export interface LogTap {
  context: string;
  /** Whether a line of this level is wanted at all (asked before the line is built). */
  wants(level: Level): boolean;
  line(level: Level, line: Record<string, unknown>): void;
}
export const logTaps = new Set<LogTap>();

function tapsWant(level: Level, context: string | undefined): boolean {
  for (const tap of logTaps) if (tap.context !== context && tap.wants(level)) return true;
  return false;
}

/**
 * One JSON object per line. Structured events pass an object; Nest's own messages arrive as strings.
 * An event written for a request carries its `request_id` (a RequestTrace spread into it), placed
 * first after time and level so a reader finds it in the same place on every line.
 */
export class JsonLogger implements LoggerService {
  constructor(private readonly level: Level | 'silent' = 'info') {}

  private emit(level: Level, message: unknown, context?: string, extra?: Record<string, unknown>) {
    const shown = ORDER[level] >= ORDER[this.level];
    const tapped = logTaps.size > 0 && tapsWant(level, context);
    if (!shown && !tapped) return;
    const base: Record<string, unknown> = { time: new Date().toISOString(), level };
    const event = message && typeof message === 'object' && !(message instanceof Error) ? (message as Record<string, unknown>) : undefined;
    if (event?.request_id) base.request_id = event.request_id;
    if (context) base.logger = context;
    if (event) Object.assign(base, event);
    else base.msg = message instanceof Error ? message.message : String(message);
    if (extra) Object.assign(base, extra);
    if (tapped) for (const tap of logTaps) if (tap.context !== context && tap.wants(level)) tap.line(level, base);
    if (shown) logSink.write(JSON.stringify(base));
  }

  log(message: unknown, context?: string) {
    // Nest's own start-up narration (a line per module and per route) is detail: debug (issue 34).
    this.emit(context && NEST_START_UP.has(context) ? 'debug' : 'info', message, context);
  }
  error(message: unknown, stackOrContext?: string, context?: string) {
    // Nest passes (message, stack, context); the stack stays in the log, never in a response. A start-up
    // failure (Nest's ExceptionHandler) is told in one plain line on stderr: its stack only at debug.
    const quiet = context === 'ExceptionHandler' && this.level !== 'debug';
    const extra = context && stackOrContext && !quiet ? { stack: stackOrContext } : undefined;
    this.emit('error', message, context ?? stackOrContext, extra);
  }
  warn(message: unknown, context?: string) {
    this.emit('warn', message, context);
  }
  debug(message: unknown, context?: string) {
    this.emit('debug', message, context);
  }
  verbose(message: unknown, context?: string) {
    this.emit('debug', message, context);
  }
}
