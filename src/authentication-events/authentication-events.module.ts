import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthenticationRecord } from '../common/authentication-record';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../users/users.module';
import { AuthenticationEvent } from './authentication-event.entity';
import { readOnlyRoutes } from '../common/read-only-routes';
import { AUTHENTICATION_EVENT_PATHS, AuthenticationEventsController } from './authentication-events.controller';
import { AuthenticationEventsRepository } from './authentication-events.repository';
import { AuthenticationEventsRetention } from './authentication-events-retention';
import { AuthenticationEventsService } from './authentication-events.service';

/**
 * SPEC §23's authentication events: the table, its read-only routes, its retention. Every module reports its
 * events to common/'s AuthenticationRecord; this module registers the sink that writes them, so no reporter
 * imports it.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuthenticationEvent]), SettingsModule, UsersModule],
  controllers: [AuthenticationEventsController, readOnlyRoutes('api/v2', AUTHENTICATION_EVENT_PATHS)],
  providers: [AuthenticationEventsRepository, AuthenticationEventsService, AuthenticationEventsRetention],
  exports: [AuthenticationEventsRetention, AuthenticationEventsRepository, AuthenticationEventsService],
})
export class AuthenticationEventsModule implements OnModuleInit {
  constructor(
    private readonly record: AuthenticationRecord,
    private readonly repository: AuthenticationEventsRepository,
  ) {}

  onModuleInit(): void {
    this.record.register(this.repository);
  }
}
