import { Module } from '@nestjs/common';
import { AuthStrategiesModule } from '../common/auth-strategies';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { SettingsModule } from '../settings/settings.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { ClearTokensCommand, CreateOAuth2TokenCommand, RevokeOAuth2TokensCommand } from './token-commands';
import { ChangePasswordCommand, CreateSuperuserCommand, EnableLocalAuthenticationCommand } from './user-commands';

/** The management commands run on the Nest application context: same services, no HTTP server. */
@Module({
  imports: [ConfigModule, DatabaseModule, AuthStrategiesModule, SettingsModule, UsersModule, TokensModule],
  providers: [
    CreateSuperuserCommand,
    ChangePasswordCommand,
    EnableLocalAuthenticationCommand,
    CreateOAuth2TokenCommand,
    RevokeOAuth2TokensCommand,
    ClearTokensCommand,
  ],
})
export class CliModule {}
