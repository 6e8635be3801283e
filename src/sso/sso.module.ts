import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { LoginProviders } from '../common/login-providers';
import { LogoutRedirects } from '../common/logout-redirects';
import { SessionsModule } from '../sessions/sessions.module';
import { SettingsModule } from '../settings/settings.module';
import { UserIdentities } from '../users/user-identities';
import { ExternalLoginsModule } from '../external-logins/external-logins.module';
import { ExternalMethods } from '../external-logins/external-methods';
import { socialMapSettingDefinitions } from '../maps/map-settings';
import { samlAttributeMapSettingDefinitions } from './saml/saml-attribute-settings';
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
import { SsoStarts } from './sso-starts';
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
import { samlMapReader } from './saml/saml-map-reader';
import { oidcMapReader } from './oidc/oidc-map-reader';

@Module({
  imports: [TypeOrmModule.forFeature([SocialAuth, SsoSession]), PendingStateModule, UsersModule, SessionsModule, SettingsModule, MapsModule, ExternalLoginsModule],
  controllers: [SsoController],
  providers: [OidcLogin, SamlLogin, SamlLogout, SsoService, SingleLogout, SsoSessionsRepository, SsoSessions, SsoMethods, SsoUsers, SsoProtocols, SsoStarts, OidcProtocol, SamlProtocol, SamlAcsStrategy],
})
export class SsoModule implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly loginProviders: LoginProviders,
    private readonly logoutRedirects: LogoutRedirects,
    private readonly singleLogout: SingleLogout,
    private readonly identities: UserIdentities,
    private readonly methods: SsoMethods,
    private readonly users: SsoUsers,
    private readonly protocols: SsoProtocols,
    oidc: OidcProtocol,
    saml: SamlProtocol,
    externalMethods: ExternalMethods,
  ) {
    // The protocols, in the order /api/v2/auth/ lists nothing by (it sorts): one registration each.
    protocols.register(oidc);
    protocols.register(saml);
    // At construction, before the settings service first reads the table: the method, its maps readers and settings.
    const definitions = ssoSettingDefinitions(config.publicUrl);
    const of = (category: string) => definitions.filter((d) => d.category === category);
    externalMethods.register({
      method: ssoLoginMethod(() => this.methods.list().length > 0),
      events: 'sso',
      mapReaders: [samlMapReader, oidcMapReader],
      settings: [
        { category: 'oidc', label: 'OpenID Connect', definitions: [...of('oidc'), ...socialMapSettingDefinitions('SOCIAL_AUTH_OIDC_', 'oidc')] },
        {
          category: 'saml',
          label: 'SAML',
          definitions: [...of('saml'), ...socialMapSettingDefinitions('SOCIAL_AUTH_SAML_', 'saml'), ...samlAttributeMapSettingDefinitions('saml')],
          checks: [checkSamlSpKeyPair],
        },
      ],
      holderOf: (key) => users.holderOf(key),
      link: (user, proven) => users.link(user, proven),
    });
  }

  onModuleInit(): void {
    this.loginProviders.register(() => this.methods.loginButtons());
    this.loginProviders.registerErrors(SSO_FAILURE_MESSAGES);
    this.loginProviders.registerErrors(SSO_LOGOUT_MESSAGES);
    // Single logout (SPEC §17): the logout route passes a session an identity provider made on to it.
    this.logoutRedirects.register((ended, trace) => this.singleLogout.afterLocalLogout(ended, trace));
    this.identities.register((userIds) => this.users.identitiesOf(userIds));
  }
}
