import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { LogTap, logTaps } from '../common/json-logger';
import { FORWARDER_CONTEXT, LogForwarder } from './log-forwarder';
import { PYTHON_LEVEL, ownLogRecord } from './log-records';

/**
 * The `awx` logger (SPEC §23): the service's own log lines, §12's structured events among them, at or above
 * LOG_AGGREGATOR_LEVEL whatever LOG_LEVEL shows. The forwarder's own lines are left out.
 */
@Injectable()
export class OwnLogRecords implements OnModuleInit, OnApplicationShutdown {
  private readonly tap: LogTap = {
    context: FORWARDER_CONTEXT,
    wants: (level) => this.forwarder.wants({ logger: 'awx', loggerName: 'awx', level: PYTHON_LEVEL[level] ?? 'INFO' }),
    line: (level, line) => this.forwarder.submit(ownLogRecord(level, line)),
  };

  constructor(private readonly forwarder: LogForwarder) {}

  onModuleInit(): void {
    logTaps.add(this.tap);
  }

  onApplicationShutdown(): void {
    logTaps.delete(this.tap);
  }
}
