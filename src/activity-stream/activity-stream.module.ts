import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ActivityRecord } from '../common/activity-record';
import { readOnlyRoutes } from '../common/read-only-routes';
import { SettingsModule } from '../settings/settings.module';
import { SettingsService } from '../settings/settings.service';
import { UsersModule } from '../users/users.module';
import { ActivityEntry } from './activity-entry.entity';
import { ActivityObject } from './activity-object.entity';
import { ACTIVITY_STREAM_SETTINGS, SYSTEM_CATEGORY } from './activity-stream-settings';
import { ACTIVITY_STREAM_PATHS, ActivityStreamController } from './activity-stream.controller';
import { ActivityStreamRepository } from './activity-stream.repository';
import { ActivityStreamRetention } from './activity-stream-retention';
import { ActivityStreamService } from './activity-stream.service';

/**
 * AWX's activity stream (SPEC §23): the tables, the read-only routes, the `system` category's two keys, the
 * retention. Every module reports its changes to common/'s ActivityRecord; this module registers the sink.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ActivityEntry, ActivityObject]), SettingsModule, UsersModule],
  controllers: [ActivityStreamController, readOnlyRoutes('api/v2', ACTIVITY_STREAM_PATHS)],
  providers: [ActivityStreamRepository, ActivityStreamService, ActivityStreamRetention],
  exports: [ActivityStreamRepository, ActivityStreamRetention],
})
export class ActivityStreamModule implements OnModuleInit {
  constructor(
    private readonly record: ActivityRecord,
    private readonly repository: ActivityStreamRepository,
    private readonly settings: SettingsService,
  ) {
    settings.register(ACTIVITY_STREAM_SETTINGS);
    settings.nameCategory(SYSTEM_CATEGORY, 'System');
  }

  onModuleInit(): void {
    this.record.register({
      enabled: () => this.settings.get('ACTIVITY_STREAM_ENABLED') === true,
      insert: (entries) => this.repository.insert(entries),
    });
  }
}
