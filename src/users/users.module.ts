import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SettingsModule } from '../settings/settings.module';
import { PasswordHasher } from './password-hasher.service';
import { UserEvents } from './user-events';
import { UserIdentities } from './user-identities';
import { User } from './user.entity';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';
import { LocalCredentialsService } from './local-credentials.service';
import { LoginFailure } from './login-failure.entity';
import { LoginThrottle } from './login-throttle.service';
import { AccountPolicy } from './account-policy';

@Module({
  imports: [TypeOrmModule.forFeature([User, LoginFailure]), SettingsModule],
  controllers: [UsersController],
  providers: [UsersService, PasswordHasher, UserEvents, UserIdentities, LocalCredentialsService, LoginThrottle, AccountPolicy],
  exports: [UsersService, PasswordHasher, UserEvents, UserIdentities, LocalCredentialsService, LoginThrottle, AccountPolicy],
})
export class UsersModule {}
