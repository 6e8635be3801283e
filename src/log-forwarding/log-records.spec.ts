import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatRecord, isForwarded, ownLogRecord } from './log-records';
import { forwardingConfig, loggingSettingDefinitions } from './logging-settings';

const defaults = Object.fromEntries(loggingSettingDefinitions().map((d) => [d.key, d.default]));
const config = (values: Record<string, unknown> = {}) => forwardingConfig((key) => ({ ...defaults, LOG_AGGREGATOR_ENABLED: true, LOG_AGGREGATOR_HOST: 'logs', LOG_AGGREGATOR_TYPE: 'logstash', ...values })[key]);
const origin = { hostName: 'host-1', node: 'node-1', installationUuid: 'install-uuid' };
const at = new Date('2024-05-01T12:34:56.789Z');

describe('log records (SPEC §23, AWX\'s LogstashFormatter)', () => {
  it('shapes a record as AWX does, and wraps it for Splunk in epoch seconds', () => {
    const record = { logger: 'authentication', loggerName: 'awx.analytics.authentication', level: 'INFO' as const, message: 'logout bob', fields: { event: 'logout' }, at };
    assert.deepEqual(JSON.parse(formatRecord(config(), origin, record)), {
      event: 'logout', '@timestamp': '2024-05-01T12:34:56.789Z', message: 'logout bob', host: 'host-1', level: 'INFO',
      logger_name: 'awx.analytics.authentication', cluster_host_id: 'node-1', tower_uuid: 'install-uuid',
    });
    const splunk = JSON.parse(formatRecord(config({ LOG_AGGREGATOR_TYPE: 'splunk', LOG_AGGREGATOR_TOWER_UUID: 'site' }), origin, record));
    assert.deepEqual(Object.keys(splunk), ['time', 'event']);
    assert.equal(splunk.time, 1714566896.789);
    assert.equal(splunk.event.tower_uuid, 'site');
  });

  it('keeps a record\'s own fields from overriding AWX\'s', () => {
    const record = { logger: 'awx', loggerName: 'awx', level: 'ERROR' as const, message: 'm', fields: { host: 'spoofed', level: 'DEBUG' }, at };
    const body = JSON.parse(formatRecord(config(), origin, record));
    assert.equal(body.host, 'host-1');
    assert.equal(body.level, 'ERROR');
  });

  it('sends only enabled loggers, at or above the level unless analytics, and nothing without a port for tcp and udp', () => {
    const own = (level: 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR') => ({ logger: 'awx', loggerName: 'awx.settings', level });
    const analytics = { logger: 'authentication', loggerName: 'awx.analytics.authentication', level: 'INFO' as const };
    assert.equal(isForwarded(config(), own('INFO')), false);
    assert.equal(isForwarded(config(), own('WARNING')), true);
    assert.equal(isForwarded(config({ LOG_AGGREGATOR_LEVEL: 'CRITICAL' }), analytics), true);
    assert.equal(isForwarded(config({ LOG_AGGREGATOR_LOGGERS: ['awx'] }), analytics), false);
    assert.equal(isForwarded(config({ LOG_AGGREGATOR_ENABLED: false }), own('ERROR')), false);
    assert.equal(isForwarded(config({ LOG_AGGREGATOR_PROTOCOL: 'tcp' }), own('ERROR')), false);
    assert.equal(isForwarded(config({ LOG_AGGREGATOR_PROTOCOL: 'udp', LOG_AGGREGATOR_PORT: 514 }), own('ERROR')), true);
    assert.equal(isForwarded(config({ LOG_AGGREGATOR_LOGGERS: [] }), { ...own('DEBUG'), always: true }), true);
  });

  it('reads one of the service\'s own lines as the awx logger\'s record', () => {
    const record = ownLogRecord('warn', { time: '2024-05-01T12:34:56.789Z', level: 'warn', logger: 'auth', event: 'login_failed', username: 'bob' });
    assert.deepEqual(record, { logger: 'awx', loggerName: 'awx.auth', level: 'WARNING', message: 'login_failed', fields: { event: 'login_failed', username: 'bob' }, at });
    assert.equal(ownLogRecord('info', { time: 'x', level: 'info', msg: 'plain' }).loggerName, 'awx');
  });
});
