import { Module, OnModuleInit } from '@nestjs/common';
import { SettingsModule } from '../settings/settings.module';
import { SettingsService } from '../settings/settings.service';
import { PasswordBackends } from '../users/password-backends';
import { UsersModule } from '../users/users.module';
import { LdapLogins } from './ldap-logins.service';
import { ldapSettingDefinitions } from './ldap-settings';
import { LdapTestController } from './ldap-test.controller';

/**
 * LDAP and Active Directory logins (SPEC §14, issue 30). Nothing imports it but the application and the
 * command-line modules: it registers its settings, counts as a remote method for DISABLE_LOCAL_AUTH, and
 * plugs its password backend into `users` (LocalCredentialsService asks it; the form, basic and the
 * password grant go through that one check).
 */
@Module({
  imports: [UsersModule, SettingsModule],
  controllers: [LdapTestController],
  providers: [LdapLogins],
  exports: [LdapLogins],
})
export class LdapModule implements OnModuleInit {
  constructor(
    settings: SettingsService,
    private readonly backends: PasswordBackends,
    private readonly logins: LdapLogins,
  ) {
    // At construction, before the settings service first reads the table.
    settings.register(ldapSettingDefinitions());
    settings.addRemoteMethod(() => logins.configured());
  }

  onModuleInit(): void {
    this.backends.register(this.logins.backend());
  }
}
