import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { SessionsModule } from '../sessions/sessions.module';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../users/users.module';
import { ApiAuthGuard } from './api-auth.guard';
import { BasicCredentialCache } from './basic-credential-cache';
import { BasicStrategy } from './basic.strategy';
import { LocalStrategy } from './local.strategy';
import { LoginPages } from './login-pages';
import { LoginController } from './login.controller';
import { MfaModule } from '../mfa/mfa.module';
import { SecondStepController } from './second-step.controller';
import { SecondStep } from './second-step.service';

@Module({
  imports: [UsersModule, SettingsModule, SessionsModule, MfaModule],
  controllers: [LoginController, SecondStepController],
  providers: [BasicStrategy, LocalStrategy, LoginPages, BasicCredentialCache, SecondStep, { provide: APP_GUARD, useClass: ApiAuthGuard }],
})
export class AuthModule {}
