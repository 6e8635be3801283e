import { Global, Module } from '@nestjs/common';
import { AuthMetrics } from './auth-metrics';
import { AuthStrategies } from './auth-strategies';
import { LoginProviders } from './login-providers';

/** Registries feature modules fill at start-up, so dependencies keep pointing one way. */
@Global()
@Module({ providers: [AuthStrategies, LoginProviders, AuthMetrics], exports: [AuthStrategies, LoginProviders, AuthMetrics] })
export class CommonModule {}
