import { Module } from '@nestjs/common';
import { ApiModule } from './api/api.module';
import { AuthModule } from './auth/auth.module';
import { AuthStrategiesModule } from './common/auth-strategies';
import { ConfigModule } from './config/config.module';
import { CredentialsModule } from './credentials/credentials.module';
import { DatabaseModule } from './database/database.module';
import { HostsModule } from './hosts/hosts.module';
import { JobTemplatesModule } from './job-templates/job-templates.module';
import { SettingsModule } from './settings/settings.module';
import { UsersModule } from './users/users.module';

@Module({
  imports: [
    ConfigModule, DatabaseModule, AuthStrategiesModule, SettingsModule, UsersModule, AuthModule, ApiModule,
    HostsModule, CredentialsModule, JobTemplatesModule,
  ],
})
export class AppModule {}
