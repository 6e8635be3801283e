import { Module } from '@nestjs/common';
import { ApiModule } from './api/api.module';
import { BackgroundWork } from './background-work';
import { MfaModule } from './mfa/mfa.module';
import { PendingStateModule } from './pending-state/pending-state.module';
import { AuthModule } from './auth/auth.module';
import { CommonModule } from './common/common.module';
import { ConfigModule } from './config/config.module';
import { CredentialsModule } from './credentials/credentials.module';
import { DatabaseModule } from './database/database.module';
import { HostsModule } from './hosts/hosts.module';
import { JobTemplatesModule } from './job-templates/job-templates.module';
import { ExternalLoginsModule } from './external-logins/external-logins.module';
import { LOGIN_METHOD_MODULES } from './login-method-modules';
import { OAuth2Module } from './oauth2/oauth2.module';
import { OrganizationsModule } from './organizations/organizations.module';
import { AuthenticationEventsModule } from './authentication-events/authentication-events.module';
import { SessionsModule } from './sessions/sessions.module';
import { SettingsModule } from './settings/settings.module';
import { SsoModule } from './sso/sso.module';
import { TokensModule } from './tokens/tokens.module';
import { UiModule } from './ui/ui.module';
import { UsersModule } from './users/users.module';
import { MapsModule } from './maps/maps.module';
import { LogForwardingModule } from './log-forwarding/log-forwarding.module';
import { ActivityStreamModule } from './activity-stream/activity-stream.module';

@Module({
  imports: [
    ConfigModule, DatabaseModule, CommonModule, SettingsModule, UsersModule, SessionsModule, TokensModule, PendingStateModule, MfaModule, AuthModule, OAuth2Module, SsoModule,
    // The external-login pipeline and the password methods on it (each asked by its registration's order: LDAP, then RADIUS).
    ExternalLoginsModule, ...LOGIN_METHOD_MODULES,
    ApiModule, UiModule, HostsModule, CredentialsModule, JobTemplatesModule, OrganizationsModule, MapsModule, AuthenticationEventsModule, ActivityStreamModule, LogForwardingModule,
  ],
  providers: [BackgroundWork],
})
export class AppModule {}
