import { Module } from '@nestjs/common';
import { ApiModule } from './api/api.module';
import { AuthModule } from './auth/auth.module';
import { AuthStrategiesModule } from './common/auth-strategies';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { OAuth2Module } from './oauth2/oauth2.module';
import { SettingsModule } from './settings/settings.module';
import { TokensModule } from './tokens/tokens.module';
import { UsersModule } from './users/users.module';

@Module({
  imports: [ConfigModule, DatabaseModule, AuthStrategiesModule, SettingsModule, UsersModule, TokensModule, AuthModule, OAuth2Module, ApiModule],
})
export class AppModule {}
