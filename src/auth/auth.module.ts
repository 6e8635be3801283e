import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { SessionsModule } from '../sessions/sessions.module';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../users/users.module';
import { ApiAuthGuard } from './api-auth.guard';
import { BasicCredentialCache } from './basic-credential-cache';
import { BasicStrategy } from './basic.strategy';
import { LoginController } from './login.controller';

@Module({
  imports: [UsersModule, SettingsModule, SessionsModule],
  controllers: [LoginController],
  providers: [BasicStrategy, BasicCredentialCache, { provide: APP_GUARD, useClass: ApiAuthGuard }],
})
export class AuthModule {}
