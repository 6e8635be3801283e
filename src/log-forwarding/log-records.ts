import type { ForwardLevel, ForwardingConfig } from './logging-settings';

const ORDER: Record<ForwardLevel, number> = { DEBUG: 10, INFO: 20, WARNING: 30, ERROR: 40, CRITICAL: 50 };

/** The service's own levels (common/json-logger.ts) in Python's names, as AWX's records carry them. */
export const PYTHON_LEVEL: Record<string, ForwardLevel> = { debug: 'DEBUG', info: 'INFO', warn: 'WARNING', error: 'ERROR' };

/** Which of LOG_AGGREGATOR_LOGGERS a record belongs to: AWX's `awx` (our own log lines) or one of the analytics loggers. */
export type ForwardLogger = 'awx' | 'activity_stream' | 'authentication';

/** One record before it is shaped for the wire. */
export interface ForwardRecord {
  /** The LOG_AGGREGATOR_LOGGERS name the record belongs to. */
  logger: ForwardLogger | string;
  /** `awx`, `awx.<context>`, or `awx.analytics.<name>`. */
  loggerName: string;
  level: ForwardLevel;
  message: string;
  fields: Record<string, unknown>;
  at: Date;
  /** Sent whatever LOG_AGGREGATOR_LOGGERS and LOG_AGGREGATOR_LEVEL say (the dropped-records warning). */
  always?: boolean;
}

/** Where this process's records say they come from. */
export interface RecordOrigin {
  hostName: string;
  /** The node's `X-API-Node`. */
  node: string;
  /** The installation's UUID, made once and the same on every node (settings/installation-uuid.ts). */
  installationUuid: string;
}

/**
 * Is the record sent at all? Only enabled loggers, nothing while forwarding is off, analytics records whatever
 * the level (AWX), the rest at or above LOG_AGGREGATOR_LEVEL; tcp and udp without a port send nothing (AWX's
 * generated rsyslog configuration then has no action).
 */
export function isForwarded(config: ForwardingConfig, record: Pick<ForwardRecord, 'logger' | 'loggerName' | 'level' | 'always'>): boolean {
  if (!config.enabled || !config.host) return false;
  if (config.protocol !== 'https' && config.port === null) return false;
  if (record.always) return true;
  if (!config.loggers.includes(record.logger)) return false;
  return record.loggerName.startsWith('awx.analytics.') || ORDER[record.level] >= ORDER[config.level];
}

/**
 * AWX's `LogstashFormatter`: one JSON object per record, the record's own fields beside AWX's; `splunk` wraps
 * it as AWX's `{"time": <epoch seconds>, "event": {…}}`. The wire text, without the LF that tcp adds.
 */
export function formatRecord(config: ForwardingConfig, origin: RecordOrigin, record: ForwardRecord): string {
  const body: Record<string, unknown> = {
    ...record.fields,
    '@timestamp': record.at.toISOString(),
    message: record.message,
    host: origin.hostName,
    level: record.level,
    logger_name: record.loggerName,
    cluster_host_id: origin.node,
    tower_uuid: config.towerUuid || origin.installationUuid,
  };
  return JSON.stringify(config.type === 'splunk' ? { time: record.at.getTime() / 1000, event: body } : body);
}

/** The awx logger's record of one of the service's own log lines (common/json-logger.ts's fields). */
export function ownLogRecord(level: string, line: Record<string, unknown>): ForwardRecord {
  const { time, level: _level, logger, msg, ...fields } = line;
  const context = typeof logger === 'string' && logger ? logger : undefined;
  return {
    logger: 'awx',
    loggerName: context ? `awx.${context}` : 'awx',
    level: PYTHON_LEVEL[level] ?? 'INFO',
    message: typeof msg === 'string' ? msg : typeof fields.event === 'string' ? fields.event : '',
    fields,
    at: typeof time === 'string' ? new Date(time) : new Date(),
  };
}
