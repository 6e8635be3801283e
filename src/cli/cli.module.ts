import { Module } from '@nestjs/common';
import { AuthStrategiesModule } from '../common/auth-strategies';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../users/users.module';
import { ChangePasswordCommand, CreateSuperuserCommand, EnableLocalAuthenticationCommand } from './user-commands';

/** The management commands run on the Nest application context: same services, no HTTP server. */
@Module({
  imports: [ConfigModule, DatabaseModule, AuthStrategiesModule, SettingsModule, UsersModule],
  providers: [CreateSuperuserCommand, ChangePasswordCommand, EnableLocalAuthenticationCommand],
})
export class CliModule {}
