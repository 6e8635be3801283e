import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { LoginProviders } from '../common/login-providers';
import { SessionsModule } from '../sessions/sessions.module';
import { SettingsModule } from '../settings/settings.module';
import { SettingsService } from '../settings/settings.service';
import { UserIdentities } from '../users/user-identities';
import { UsersModule } from '../users/users.module';
import { OidcProviders } from './oidc-providers.service';
import { SamlProviders } from './saml-providers.service';
import { SocialAuth } from './social-auth.entity';
import { SSO_FAILURE_MESSAGES } from './sso-failure';
import { SsoMethods } from './sso-methods';
import { SsoPassport } from './sso-passport';
import { checkSamlSpKeyPair, ssoSettingDefinitions } from './sso-settings';
import { PendingStateModule } from '../pending-state/pending-state.module';
import { SsoUsers } from './sso-users.service';
import { SsoController } from './sso.controller';

/**
 * Single sign-on (seed §5.4, SPEC §7): OpenID Connect and SAML 2.0. Uses sessions, users and
 * settings; nothing imports it but the application module. It fills the registries the others
 * read: settings categories, login-page buttons and failure texts, users' linked identities.
 */
@Module({
  imports: [TypeOrmModule.forFeature([SocialAuth]), PendingStateModule, UsersModule, SessionsModule, SettingsModule],
  controllers: [SsoController],
  providers: [SsoPassport, OidcProviders, SamlProviders, SsoMethods, SsoUsers],
})
export class SsoModule implements OnModuleInit {
  constructor(
    settings: SettingsService,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly loginProviders: LoginProviders,
    private readonly identities: UserIdentities,
    private readonly methods: SsoMethods,
    private readonly users: SsoUsers,
  ) {
    // At construction, before the settings service first reads the table.
    settings.register(ssoSettingDefinitions(config.publicUrl));
    settings.addCheck('saml', checkSamlSpKeyPair);
  }

  onModuleInit(): void {
    this.loginProviders.register(() => this.methods.loginButtons());
    this.loginProviders.registerErrors(SSO_FAILURE_MESSAGES);
    this.identities.register((userIds) => this.users.identitiesOf(userIds));
  }
}
