import { Global, Module } from '@nestjs/common';
import { AuthMetrics } from './auth-metrics';
import { Authenticator } from './authenticator';
import { LoginProviders } from './login-providers';

/** Registries feature modules fill at start-up, so dependencies keep pointing one way. */
@Global()
@Module({ providers: [Authenticator, LoginProviders, AuthMetrics], exports: [Authenticator, LoginProviders, AuthMetrics] })
export class CommonModule {}
