import { Injectable, OnModuleInit } from '@nestjs/common';
import { activityEntry } from '../activity-stream/activity-stream-list';
import { ActivityStreamRepository } from '../activity-stream/activity-stream.repository';
import { LogForwarder } from './log-forwarder';

const LOGGER_NAME = 'awx.analytics.activity_stream';

/**
 * The `activity_stream` logger (AWX's `emit_activity_stream_change`, SPEC §23): one INFO record per entry as it is
 * recorded, with the entry's changes (as an object), relationship, actor, operation, objects and summary_fields.
 */
@Injectable()
export class ActivityStreamRecords implements OnModuleInit {
  constructor(
    private readonly stream: ActivityStreamRepository,
    private readonly forwarder: LogForwarder,
  ) {}

  onModuleInit(): void {
    this.stream.listen((row) => {
      if (!this.forwarder.wants({ logger: 'activity_stream', loggerName: LOGGER_NAME, level: 'INFO' })) return;
      const entry = activityEntry(row, row.actorId !== null);
      const changes = entry.changes as Record<string, unknown>;
      this.forwarder.submit({
        logger: 'activity_stream', loggerName: LOGGER_NAME, level: 'INFO', message: `Activity Stream update entry for ${row.object1}`, at: row.timestamp,
        fields: {
          changes, relationship: typeof changes.relationship === 'string' ? changes.relationship : '', actor: row.actorUsername,
          operation: row.operation, object1: row.object1, object2: row.object2, summary_fields: entry.summary_fields,
        },
      });
    });
  }
}
