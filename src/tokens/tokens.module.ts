import { Inject, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { TokenActivity } from './token-activity';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AccessToken } from './access-token.entity';
import { Application } from './application.entity';
import { AuthorizationCode } from './authorization-code.entity';
import { DeviceCode } from './device-code.entity';
import { RefreshToken } from './refresh-token.entity';
import { RevocationCutoff } from './revocation-cutoff.entity';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../users/users.module';
import { ApplicationsController } from './applications.controller';
import { ApplicationsRepository } from './applications.repository';
import { ApplicationsService } from './applications.service';
import { AuthorizationCodesRepository } from './authorization-codes.repository';
import { DeviceCodesRepository } from './device-codes.repository';
import { BearerStrategy } from './bearer.strategy';
import { ExpiringTokensRepository } from './expiring-tokens.repository';
import { LastUsedBuffer } from './last-used.buffer';
import { refuseWhenOAuth2Disabled } from './oauth2-disabled.middleware';
import { RefreshTokensService } from './refresh-tokens.service';
import { TokenCleanUpRepository } from './token-clean-up.repository';
import { TokenResources } from './token-resources.service';
import { TokenExpiryNotices } from './token-expiry-notices.service';
import { TokenRevocationService } from './token-revocation.service';
import { TokenRotationService } from './token-rotation.service';
import { TokensController } from './tokens.controller';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';

/** Personal and application tokens, applications, bearer authentication (seed §5.3, SPEC §5). */
@Module({
  imports: [TypeOrmModule.forFeature([Application, AccessToken, RefreshToken, AuthorizationCode, DeviceCode, RevocationCutoff]), UsersModule, SettingsModule],
  controllers: [TokensController, ApplicationsController],
  providers: [
    TokensRepository, AuthorizationCodesRepository, DeviceCodesRepository, ApplicationsRepository, ExpiringTokensRepository, TokenCleanUpRepository,
    TokenActivity, TokensService, TokenRevocationService, TokenRotationService, TokenExpiryNotices, RefreshTokensService, ApplicationsService, TokenResources,
    LastUsedBuffer, BearerStrategy,
  ],
  exports: [
    TokensService, TokenRevocationService, TokenExpiryNotices, RefreshTokensService, ApplicationsService, LastUsedBuffer, TokensRepository,
    AuthorizationCodesRepository, DeviceCodesRepository,
  ],
})
export class TokensModule implements NestModule {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  configure(consumer: MiddlewareConsumer): void {
    refuseWhenOAuth2Disabled(consumer, this.config, TokensController, ApplicationsController);
  }
}
