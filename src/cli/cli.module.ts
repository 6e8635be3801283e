import { Module } from '@nestjs/common';
import { CommonModule } from '../common/common.module';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { SessionsModule } from '../sessions/sessions.module';
import { SettingsModule } from '../settings/settings.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { MfaModule } from '../mfa/mfa.module';
import { ExternalLoginsModule } from '../external-logins/external-logins.module';
import { LOGIN_METHOD_MODULES } from '../login-method-modules';
import { ResetMfaCommand } from './mfa-commands';
import { CleanupActivityStreamCommand, CleanupAuthenticationEventsCommand } from './record-commands';
import { ActivityStreamModule } from '../activity-stream/activity-stream.module';
import { AuthenticationEventsModule } from '../authentication-events/authentication-events.module';
import { LdapTestCommand, LoginTestCommand, RadiusTestCommand } from './login-test-commands';
import { CleanupSessionsCommand, ExpireSessionsCommand } from './session-commands';
import { ClearTokensCommand, CreateOAuth2TokenCommand, ListExpiringTokensCommand, RevokeOAuth2TokensCommand } from './token-commands';
import { ChangePasswordCommand, CreateSuperuserCommand, EnableLocalAuthenticationCommand, UnlockUserCommand, DisableInactiveUsersCommand } from './user-commands';

/**
 * The management commands run on the Nest application context: same services, no HTTP server. The password
 * methods (LOGIN_METHOD_MODULES) are here for `login_test`, and so that their settings exist for every command.
 */
@Module({
  imports: [ConfigModule, DatabaseModule, CommonModule, SettingsModule, UsersModule, SessionsModule, TokensModule, MfaModule, ExternalLoginsModule, AuthenticationEventsModule, ActivityStreamModule, ...LOGIN_METHOD_MODULES],
  providers: [
    CreateSuperuserCommand,
    ChangePasswordCommand,
    EnableLocalAuthenticationCommand,
    UnlockUserCommand,
    DisableInactiveUsersCommand,
    ResetMfaCommand,
    ExpireSessionsCommand,
    CleanupSessionsCommand,
    CleanupAuthenticationEventsCommand,
    CleanupActivityStreamCommand,
    CreateOAuth2TokenCommand,
    RevokeOAuth2TokensCommand,
    ClearTokensCommand,
    ListExpiringTokensCommand,
    LoginTestCommand,
    LdapTestCommand,
    RadiusTestCommand,
  ],
})
export class CliModule {}
