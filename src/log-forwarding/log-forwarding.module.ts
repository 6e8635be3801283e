import { Module } from '@nestjs/common';
import { ActivityStreamModule } from '../activity-stream/activity-stream.module';
import { AuthenticationEventsModule } from '../authentication-events/authentication-events.module';
import { ActivityStreamRecords } from './activity-stream-records';
import { SettingsModule } from '../settings/settings.module';
import { SettingsService } from '../settings/settings.service';
import { AuthenticationRecords } from './authentication-records';
import { LogForwarder } from './log-forwarder';
import { LoggingTestController } from './logging-test.controller';
import { LOGGING_CATEGORY, loggingSettingDefinitions, loggingSettingsCheck } from './logging-settings';
import { OwnLogRecords } from './own-log-records';

/**
 * Log forwarding to an outside receiver with AWX 23's `logging` settings (SPEC §23): the `awx` logger (the
 * service's own lines), `activity_stream` (the stream's entries) and `authentication` (the events).
 */
@Module({
  imports: [SettingsModule, AuthenticationEventsModule, ActivityStreamModule],
  controllers: [LoggingTestController],
  providers: [LogForwarder, AuthenticationRecords, ActivityStreamRecords, OwnLogRecords],
  exports: [LogForwarder],
})
export class LogForwardingModule {
  constructor(settings: SettingsService) {
    settings.register(loggingSettingDefinitions());
    settings.nameCategory(LOGGING_CATEGORY, 'Logging');
    settings.addCheck(LOGGING_CATEGORY, loggingSettingsCheck((key) => settings.get(key)));
  }
}
