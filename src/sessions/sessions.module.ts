import { AllSessionsController } from './all-sessions.controller';
import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthMetrics } from '../common/auth-metrics';
import { SettingsModule } from '../settings/settings.module';
import { UserEvents } from '../users/user-events';
import { UsersModule } from '../users/users.module';
import { CsrfService } from './csrf.service';
import { SessionCookies } from './session-cookies';
import { SessionEventsController } from './session-events.controller';
import { SessionLogin } from './session-login.service';
import { SessionLimitInterceptor } from './session-limit.interceptor';
import { SessionSweeper } from './session-sweeper.service';
import { SessionWatcher } from './session-watcher.service';
import { Session } from './session.entity';
import { SessionStrategy } from './session.strategy';
import { SessionsController } from './sessions.controller';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';

@Module({
  imports: [TypeOrmModule.forFeature([Session]), UsersModule, SettingsModule],
  controllers: [SessionsController, AllSessionsController, SessionEventsController],
  providers: [SessionsRepository, SessionsService, SessionCookies, SessionStrategy, SessionSweeper, SessionWatcher, CsrfService, SessionLogin, SessionLimitInterceptor],
  exports: [SessionLimitInterceptor, SessionsService, SessionCookies, SessionSweeper, SessionWatcher, CsrfService, SessionLogin],
})
export class SessionsModule implements OnModuleInit {
  constructor(
    private readonly events: UserEvents,
    private readonly sessions: SessionsService,
    private readonly metrics: AuthMetrics,
  ) {}

  /** Account changes end sessions (SPEC §8): other sessions on a password change, all on deactivation. */
  onModuleInit(): void {
    this.metrics.setLiveSessionsSource(() => this.sessions.countLive());
    this.events.subscribe(async (event) => {
      if (event.type === 'password_changed') {
        await this.sessions.endAllOf(event.userId, 'password_changed', event.trace, event.keepSessionId ?? null);
      } else if (event.type === 'deactivated') {
        await this.sessions.endAllOf(event.userId, 'user_disabled', event.trace);
      } else if (event.type === 'access_revoked') {
        await this.sessions.endAllOf(event.userId, 'access_revoked', event.trace);
      }
    });
  }
}
