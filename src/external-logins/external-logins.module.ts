import { Module } from '@nestjs/common';
import { MapsModule } from '../maps/maps.module';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../users/users.module';
import { ExternalLogins } from './external-logins.service';
import { ExternalMethods } from './external-methods';
import { LoginExplainer } from './login-explainer.service';
import { LoginTestController } from './login-test.controller';
import { PasswordLogins } from './password-logins.service';

/**
 * The external-login pipeline (issue 55): what happens after any method (a directory, RADIUS, an identity
 * provider, a team's own) has proved who someone is, the one registration every method makes
 * (ExternalMethods), the password methods' Passport strategies, and the explainer route and service.
 */
@Module({
  imports: [UsersModule, SettingsModule, MapsModule],
  controllers: [LoginTestController],
  providers: [ExternalMethods, ExternalLogins, PasswordLogins, LoginExplainer],
  exports: [ExternalMethods, ExternalLogins, LoginExplainer],
})
export class ExternalLoginsModule {}
