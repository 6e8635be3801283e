import { Module } from '@nestjs/common';
import { AuthenticationEventsModule } from '../authentication-events/authentication-events.module';
import { SettingsModule } from '../settings/settings.module';
import { SettingsService } from '../settings/settings.service';
import { AuthenticationRecords } from './authentication-records';
import { LogForwarder } from './log-forwarder';
import { LoggingTestController } from './logging-test.controller';
import { LOGGING_CATEGORY, loggingSettingDefinitions, loggingSettingsCheck } from './logging-settings';
import { OwnLogRecords } from './own-log-records';

/**
 * Log forwarding to an outside receiver with AWX 23's `logging` settings (SPEC §23): the `awx` logger (the
 * service's own lines) and `authentication` (the events); the activity stream's logger joins when the stream does.
 */
@Module({
  imports: [SettingsModule, AuthenticationEventsModule],
  controllers: [LoggingTestController],
  providers: [LogForwarder, AuthenticationRecords, OwnLogRecords],
  exports: [LogForwarder],
})
export class LogForwardingModule {
  constructor(settings: SettingsService) {
    settings.register(loggingSettingDefinitions());
    settings.nameCategory(LOGGING_CATEGORY, 'Logging');
    settings.addCheck(LOGGING_CATEGORY, loggingSettingsCheck((key) => settings.get(key)));
  }
}
