import { Module } from '@nestjs/common';
import { CommonModule } from '../common/common.module';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { LdapModule } from '../ldap/ldap.module';
import { SessionsModule } from '../sessions/sessions.module';
import { SettingsModule } from '../settings/settings.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { MfaModule } from '../mfa/mfa.module';
import { RadiusModule } from '../radius/radius.module';
import { ResetMfaCommand } from './mfa-commands';
import { LdapTestCommand } from './ldap-commands';
import { RadiusTestCommand } from './radius-commands';
import { CleanupSessionsCommand, ExpireSessionsCommand } from './session-commands';
import { ClearTokensCommand, CreateOAuth2TokenCommand, ListExpiringTokensCommand, RevokeOAuth2TokensCommand } from './token-commands';
import { ChangePasswordCommand, CreateSuperuserCommand, EnableLocalAuthenticationCommand } from './user-commands';

/**
 * The management commands run on the Nest application context: same services, no HTTP server. LdapModule
 * and RadiusModule are here for `ldap_test` and `radius_test`, and so that their settings exist for every command.
 */
@Module({
  imports: [ConfigModule, DatabaseModule, CommonModule, SettingsModule, UsersModule, SessionsModule, TokensModule, MfaModule, LdapModule, RadiusModule],
  providers: [
    CreateSuperuserCommand,
    ChangePasswordCommand,
    EnableLocalAuthenticationCommand,
    ResetMfaCommand,
    ExpireSessionsCommand,
    CleanupSessionsCommand,
    CreateOAuth2TokenCommand,
    RevokeOAuth2TokensCommand,
    ClearTokensCommand,
    ListExpiringTokensCommand,
    LdapTestCommand,
    RadiusTestCommand,
  ],
})
export class CliModule {}
