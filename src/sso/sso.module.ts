import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { LoginProviders } from '../common/login-providers';
import { LogoutRedirects } from '../common/logout-redirects';
import { SessionsModule } from '../sessions/sessions.module';
import { SettingsModule } from '../settings/settings.module';
import { SettingsService } from '../settings/settings.service';
import { UserIdentities } from '../users/user-identities';
import { LoginMethods } from '../users/login-methods';
import { ssoLoginMethod } from './sso-login-method';
import { UsersModule } from '../users/users.module';
import { MapsModule } from '../maps/maps.module';
import { PendingStateModule } from '../pending-state/pending-state.module';
import { OidcLogin } from './oidc/oidc-login.service';
import { SamlLogin } from './saml/saml-login.service';
import { SamlLogout } from './saml/saml-logout.service';
import { SingleLogout, SSO_LOGOUT_MESSAGES } from './single-logout.service';
import { SocialAuth } from './social-auth.entity';
import { SSO_FAILURE_MESSAGES } from './sso-failure';
import { SsoMethods } from './sso-methods';
import { SsoSession } from './sso-session.entity';
import { SsoSessionsRepository } from './sso-sessions.repository';
import { SsoSessions } from './sso-sessions.service';
import { checkSamlSpKeyPair, ssoSettingDefinitions } from './sso-settings';
import { SsoUsers } from './sso-users.service';
import { SsoController } from './sso.controller';
import { SsoService } from './sso.service';
import { SsoProtocols } from './sso-protocol';
import { OidcProtocol } from './oidc/oidc-protocol';
import { SamlProtocol } from './saml/saml-protocol';
import { SamlAcsStrategy } from './saml/saml-acs.strategy';

/**
 * Single sign-on (seed §5.4, SPEC §7) and single logout (SPEC §17): OpenID Connect and SAML 2.0.
 * Uses sessions, users and settings; nothing imports it but the application module. It fills the
 * registries the others read: settings categories, login-page buttons and failure texts, users'
 * linked identities, and what follows a local logout.
 */
import { MapSources } from '../maps/map-sources';
import { samlMapReader } from './saml/saml-map-reader';
import { oidcMapReader } from './oidc/oidc-map-reader';

@Module({
  imports: [TypeOrmModule.forFeature([SocialAuth, SsoSession]), PendingStateModule, UsersModule, SessionsModule, SettingsModule, MapsModule],
  controllers: [SsoController],
  providers: [OidcLogin, SamlLogin, SamlLogout, SsoService, SingleLogout, SsoSessionsRepository, SsoSessions, SsoMethods, SsoUsers, SsoProtocols, OidcProtocol, SamlProtocol, SamlAcsStrategy],
})
export class SsoModule implements OnModuleInit {
  constructor(
    settings: SettingsService,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly loginProviders: LoginProviders,
    private readonly logoutRedirects: LogoutRedirects,
    private readonly singleLogout: SingleLogout,
    private readonly identities: UserIdentities,
    private readonly methods: SsoMethods,
    private readonly users: SsoUsers,
    private readonly loginMethods: LoginMethods,
    private readonly protocols: SsoProtocols,
    oidc: OidcProtocol,
    saml: SamlProtocol,
    private readonly mapSources: MapSources,
  ) {
    // The protocols, in the order /api/v2/auth/ lists nothing by (it sorts): one registration each.
    protocols.register(oidc);
    protocols.register(saml);
    // At construction, before the settings service first reads the table.
    settings.register(ssoSettingDefinitions(config.publicUrl));
    settings.addCheck('saml', checkSamlSpKeyPair);
  }

  onModuleInit(): void {
    this.loginMethods.register(ssoLoginMethod(() => this.methods.list().length > 0));
    this.loginProviders.register(() => this.methods.loginButtons());
    this.loginProviders.registerErrors(SSO_FAILURE_MESSAGES);
    this.loginProviders.registerErrors(SSO_LOGOUT_MESSAGES);
    // Single logout (SPEC §17): the logout route passes a session an identity provider made on to it.
    this.logoutRedirects.register((ended, trace) => this.singleLogout.afterLocalLogout(ended, trace));
    this.identities.register((userIds) => this.users.identitiesOf(userIds));
    // What an SSO login grants (SPEC §21): how each protocol reads AWX's map settings.
    this.mapSources.register(samlMapReader);
    this.mapSources.register(oidcMapReader);
  }
}
