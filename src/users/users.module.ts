import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SettingsModule } from '../settings/settings.module';
import { PasswordHasher } from './password-hasher.service';
import { UserEvents } from './user-events';
import { UserIdentities } from './user-identities';
import { User } from './user.entity';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';
import { UserActivity } from './user-activity';
import { LocalCredentialsService } from './local-credentials.service';
import { LoginFailure } from './login-failure.entity';
import { LoginThrottle } from './login-throttle.service';
import { AccountPolicy } from './account-policy';
import { RevocationJob } from './revocation-job.entity';
import { RevocationJobs } from './revocation-jobs';
import { LoginMethods } from './login-methods';
import { PasswordCheck } from './password-check.service';
import { Provisioning } from './provisioning';
import { UserPresenter } from './user-presenter';
import { UserVisibility } from './user-visibility';
import { CommonPasswords } from './common-passwords';
import { PasswordHistoryEntry } from './password-history.entity';
import { PasswordHistoryRepository } from './password-history.repository';
import { PasswordRules } from './password-rules.service';
import { LoginLocksController } from './login-locks.controller';
import { LoginLocksRepository } from './login-locks.repository';
import { LoginLocksService } from './login-locks.service';
import { BreakGlass } from './break-glass';
import { InactiveAccounts } from './inactive-accounts';
import { InactiveAccountsRepository } from './inactive-accounts.repository';
import { VisibleUser } from './visible-user';
import { LoginEvents } from './login-events';

@Module({
  imports: [TypeOrmModule.forFeature([User, LoginFailure, RevocationJob, PasswordHistoryEntry]), SettingsModule],
  controllers: [UsersController, LoginLocksController],
  providers: [UsersRepository, UsersService, UserActivity, PasswordHasher, UserEvents, UserIdentities, LocalCredentialsService, LoginThrottle, AccountPolicy, RevocationJobs, LoginMethods, PasswordCheck, Provisioning, UserPresenter, UserVisibility,
    CommonPasswords, PasswordHistoryRepository, PasswordRules, LoginLocksRepository, LoginLocksService, BreakGlass, InactiveAccounts, InactiveAccountsRepository, VisibleUser, LoginEvents],
  exports: [UsersRepository, UsersService, PasswordHasher, UserEvents, UserIdentities, LocalCredentialsService, LoginThrottle, AccountPolicy, RevocationJobs, LoginMethods, PasswordCheck, Provisioning, UserPresenter, UserVisibility, LoginLocksService, BreakGlass, InactiveAccounts, VisibleUser, LoginEvents],
})
export class UsersModule {}
