import { Global, Module } from '@nestjs/common';
import { AuthMetrics } from './auth-metrics';
import { ActivityRecord } from './activity-record';
import { AuthenticationRecord } from './authentication-record';
import { Authenticator } from './authenticator';
import { Clock, SystemClock } from './clock';
import { LoginProviders } from './login-providers';
import { LogoutRedirects } from './logout-redirects';
import { Scheduler } from './scheduler';

/** What every module uses: the clock, and the registries feature modules fill at start-up, so dependencies keep pointing one way. */
@Global()
@Module({
  providers: [{ provide: Clock, useClass: SystemClock }, Authenticator, LoginProviders, LogoutRedirects, AuthMetrics, Scheduler, AuthenticationRecord, ActivityRecord],
  exports: [AuthenticationRecord, ActivityRecord, Clock, Authenticator, LoginProviders, LogoutRedirects, AuthMetrics, Scheduler],
})
export class CommonModule {}
