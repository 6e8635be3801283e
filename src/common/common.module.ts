import { Global, Module } from '@nestjs/common';
import { AuthMetrics } from './auth-metrics';
import { Authenticator } from './authenticator';
import { Clock, SystemClock } from './clock';
import { LoginProviders } from './login-providers';

/** What every module uses: the clock, and the registries feature modules fill at start-up, so dependencies keep pointing one way. */
@Global()
@Module({
  providers: [{ provide: Clock, useClass: SystemClock }, Authenticator, LoginProviders, AuthMetrics],
  exports: [Clock, Authenticator, LoginProviders, AuthMetrics],
})
export class CommonModule {}
