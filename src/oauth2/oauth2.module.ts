import { Inject, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SessionsModule } from '../sessions/sessions.module';
import { SettingsModule } from '../settings/settings.module';
import { refuseWhenOAuth2Disabled } from '../tokens/oauth2-disabled.middleware';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { MfaModule } from '../mfa/mfa.module';
import { AuthorizationCodes } from './authorization-codes.service';
import { AuthorizeController } from './authorize.controller';
import { AuthorizeEndpoint } from './authorize-endpoint.service';
import { DeviceAuthorizationEndpoint } from './device-authorization-endpoint.service';
import { DeviceCodes } from './device-codes.service';
import { DeviceController } from './device.controller';
import { OAuth2Controller } from './oauth2.controller';
import { RevocationEndpoint } from './revocation-endpoint.service';
import { IntrospectionEndpoint } from './introspection-endpoint.service';
import { TokenEndpoint } from './token-endpoint.service';

/** The OAuth 2 provider endpoints under `/api/o/` (SPEC §5), built on the tokens module. */
@Module({
  imports: [TokensModule, SessionsModule, UsersModule, SettingsModule, MfaModule],
  controllers: [OAuth2Controller, AuthorizeController, DeviceController],
  providers: [AuthorizationCodes, DeviceCodes, TokenEndpoint, RevocationEndpoint, IntrospectionEndpoint, AuthorizeEndpoint, DeviceAuthorizationEndpoint],
  exports: [DeviceCodes],
})
export class OAuth2Module implements NestModule {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  configure(consumer: MiddlewareConsumer): void {
    refuseWhenOAuth2Disabled(consumer, this.config, OAuth2Controller, AuthorizeController, DeviceController);
  }
}
