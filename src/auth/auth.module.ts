import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../users/users.module';
import { ApiAuthGuard } from './api-auth.guard';
import { BasicCredentialCache } from './basic-credential-cache';
import { BasicStrategy } from './basic.strategy';
import { CsrfService } from './csrf.service';

@Module({
  imports: [UsersModule, SettingsModule],
  providers: [BasicStrategy, BasicCredentialCache, CsrfService, { provide: APP_GUARD, useClass: ApiAuthGuard }],
  exports: [CsrfService],
})
export class AuthModule {}
