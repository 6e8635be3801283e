import { isIP } from 'node:net';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { HOST_NAME, integer, refuse } from '../common/validation';
import type { CategoryCheck } from '../settings/settings.service';
import type { SettingDefinition } from '../settings/setting-definition';

/** AWX 23's `logging` category (SPEC §23). */
export const LOGGING_CATEGORY = 'logging';

export const AGGREGATOR_TYPES = ['logstash', 'splunk', 'loggly', 'sumologic', 'other'] as const;
export const PROTOCOLS = ['https', 'tcp', 'udp'] as const;
export const LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const;
export type ForwardLevel = (typeof LEVELS)[number];
/** AWX's five, its `performance` logger, and ours (`authentication`); only awx, activity_stream and authentication produce records here. */
export const LOGGER_NAMES = ['awx', 'activity_stream', 'job_events', 'system_tracking', 'broadcast_websocket', 'performance', 'authentication'] as const;
const DEFAULT_LOGGERS = ['awx', 'activity_stream', 'job_events', 'system_tracking', 'broadcast_websocket', 'authentication'];

/** A host name or address, or (for https) an http(s) URL; null or "" is "no host". */
function hostProblem(value: string): string | undefined {
  if (/\s/.test(value)) return 'Enter a host name, an IP address or a URL without spaces.';
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return 'Enter a valid URL.';
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'Only an https:// or http:// URL names a receiver.';
    return url.username || url.password ? 'Put the credentials in LOG_AGGREGATOR_USERNAME and LOG_AGGREGATOR_PASSWORD, not in the URL.' : undefined;
  }
  const bare = value.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare)) return undefined;
  const withPath = /^([^/?#]+)([/?#].*)?$/.exec(value);
  const hostPort = withPath?.[1] ?? value;
  const host = hostPort.replace(/:\d{1,5}$/, '');
  return HOST_NAME.test(host) || isIP(host.replace(/^\[(.*)\]$/, '$1')) ? undefined : 'Enter a valid host name, IP address or URL.';
}

const host = z
  .string()
  .max(1024)
  .nullable()
  .superRefine((value, ctx) => {
    const problem = value ? hostProblem(value) : undefined;
    if (problem) refuse(ctx, problem, value);
  });

const loggers = z.array(z.string().pipe(z.enum(LOGGER_NAMES))).max(LOGGER_NAMES.length);

const absolutePath = z
  .string()
  .max(1024)
  .refine((value) => isAbsolute(value) && !value.includes('\u0000'), 'Enter an absolute path.');

/** AWX 23's keys and defaults; our bounds where AWX had none (SPEC §23). */
export function loggingSettingDefinitions(): SettingDefinition[] {
  const category = LOGGING_CATEGORY;
  return [
    { key: 'LOG_AGGREGATOR_HOST', category, default: null, schema: host },
    { key: 'LOG_AGGREGATOR_PORT', category, default: null, schema: integer(1, 65535).nullable() },
    { key: 'LOG_AGGREGATOR_TYPE', category, default: null, schema: z.enum(AGGREGATOR_TYPES).nullable() },
    { key: 'LOG_AGGREGATOR_USERNAME', category, default: '', schema: z.string().max(255) },
    { key: 'LOG_AGGREGATOR_PASSWORD', category, default: '', secret: true, schema: z.string().max(1024) },
    { key: 'LOG_AGGREGATOR_LOGGERS', category, default: DEFAULT_LOGGERS, schema: loggers },
    { key: 'LOG_AGGREGATOR_INDIVIDUAL_FACTS', category, default: false, schema: z.boolean() },
    { key: 'LOG_AGGREGATOR_ENABLED', category, default: false, schema: z.boolean() },
    { key: 'LOG_AGGREGATOR_TOWER_UUID', category, default: '', schema: z.string().max(255) },
    { key: 'LOG_AGGREGATOR_PROTOCOL', category, default: 'https', schema: z.enum(PROTOCOLS) },
    { key: 'LOG_AGGREGATOR_TCP_TIMEOUT', category, default: 5, schema: integer(1, 300) },
    { key: 'LOG_AGGREGATOR_VERIFY_CERT', category, default: true, schema: z.boolean() },
    { key: 'LOG_AGGREGATOR_LEVEL', category, default: 'WARNING', schema: z.enum(LEVELS) },
    { key: 'LOG_AGGREGATOR_ACTION_QUEUE_SIZE', category, default: 131072, schema: integer(1, 1048576) },
    { key: 'LOG_AGGREGATOR_ACTION_MAX_DISK_USAGE_GB', category, default: 1, schema: integer(1, 1024) },
    { key: 'LOG_AGGREGATOR_MAX_DISK_USAGE_PATH', category, default: '/var/lib/awx', schema: absolutePath },
    { key: 'LOG_AGGREGATOR_RSYSLOGD_DEBUG', category, default: false, schema: z.boolean() },
  ] as SettingDefinition[];
}

/** Where records go, as one write leaves it: a stored password never follows a change of it. */
const addressOf = (values: (key: string) => unknown) =>
  JSON.stringify([values('LOG_AGGREGATOR_HOST') ?? null, values('LOG_AGGREGATOR_PORT') ?? null, values('LOG_AGGREGATOR_PROTOCOL')]);

/**
 * AWX's `logging_validate` on the values a write leaves (under the key, as §9, rather than AWX's
 * `non_field_errors`), and §23's rule that a stored password is never sent to a new address: a write that moves
 * the host, port or protocol of an aggregator with a stored password carries the password in clear.
 */
export function loggingSettingsCheck(get: (key: string) => unknown): CategoryCheck {
  return (next, typed): Record<string, string[]> | undefined => {
    if (next.LOG_AGGREGATOR_ENABLED === true) {
      if (!next.LOG_AGGREGATOR_HOST) return { LOG_AGGREGATOR_HOST: ['Cannot enable log aggregator without providing host.'] };
      if (!next.LOG_AGGREGATOR_TYPE) return { LOG_AGGREGATOR_TYPE: ['Cannot enable log aggregator without providing type.'] };
    }
    const stored = String(get('LOG_AGGREGATOR_PASSWORD') ?? '');
    const moved = addressOf((key) => next[key]) !== addressOf(get);
    if (stored !== '' && moved && !typed.has('LOG_AGGREGATOR_PASSWORD')) {
      return { LOG_AGGREGATOR_PASSWORD: ['The aggregator\'s address changed, so the stored password is not kept: send the password for the new address.'] };
    }
    return undefined;
  };
}

/** What the forwarder reads, at the moment it sends (a change applies to the next record). */
export interface ForwardingConfig {
  enabled: boolean;
  host: string | null;
  port: number | null;
  type: (typeof AGGREGATOR_TYPES)[number] | null;
  username: string;
  password: string;
  loggers: string[];
  towerUuid: string;
  protocol: (typeof PROTOCOLS)[number];
  timeoutMs: number;
  verifyCert: boolean;
  level: ForwardLevel;
  queueSize: number;
  maxDiskBytes: number;
  diskPath: string;
  debug: boolean;
}

export function forwardingConfig(get: (key: string) => unknown): ForwardingConfig {
  return {
    enabled: get('LOG_AGGREGATOR_ENABLED') === true,
    host: (get('LOG_AGGREGATOR_HOST') as string | null) || null,
    port: get('LOG_AGGREGATOR_PORT') as number | null,
    type: get('LOG_AGGREGATOR_TYPE') as ForwardingConfig['type'],
    username: get('LOG_AGGREGATOR_USERNAME') as string,
    password: get('LOG_AGGREGATOR_PASSWORD') as string,
    loggers: get('LOG_AGGREGATOR_LOGGERS') as string[],
    towerUuid: get('LOG_AGGREGATOR_TOWER_UUID') as string,
    protocol: get('LOG_AGGREGATOR_PROTOCOL') as ForwardingConfig['protocol'],
    timeoutMs: (get('LOG_AGGREGATOR_TCP_TIMEOUT') as number) * 1000,
    verifyCert: get('LOG_AGGREGATOR_VERIFY_CERT') === true,
    level: get('LOG_AGGREGATOR_LEVEL') as ForwardLevel,
    queueSize: get('LOG_AGGREGATOR_ACTION_QUEUE_SIZE') as number,
    maxDiskBytes: (get('LOG_AGGREGATOR_ACTION_MAX_DISK_USAGE_GB') as number) * 1024 ** 3,
    diskPath: get('LOG_AGGREGATOR_MAX_DISK_USAGE_PATH') as string,
    debug: get('LOG_AGGREGATOR_RSYSLOGD_DEBUG') === true,
  };
}
