import { Module, OnModuleInit } from '@nestjs/common';
import { SettingsModule } from '../settings/settings.module';
import { SettingsService } from '../settings/settings.service';
import { LoginMethods } from '../users/login-methods';
import { UsersModule } from '../users/users.module';
import { MapsModule } from '../maps/maps.module';
import { LdapLogins } from './ldap-logins.service';
import { LdapStrategy } from './ldap.strategy';
import { DIRECTORY_NAMES, ldapSettingDefinitions, settingPrefix } from './ldap-settings';
import { MapSources } from '../maps/map-sources';
import { ldapMapSettingDefinitions } from '../maps/map-settings';
import { isDn } from './ldap-names';
import { ldapMapReader } from './ldap-map-reader';
import { LdapTestController } from './ldap-test.controller';

/**
 * LDAP and Active Directory logins (SPEC §14, issue 30). Nothing imports it but the application and the
 * command-line modules: it registers its settings and its login method (`users/login-methods.ts`: a remote
 * method for DISABLE_LOCAL_AUTH that proves passwords, so its users owe the second step; LocalCredentialsService
 * asks it, and the form, basic and the password grant go through that one check).
 */
@Module({
  imports: [UsersModule, SettingsModule, MapsModule],
  controllers: [LdapTestController],
  providers: [LdapLogins, LdapStrategy],
  exports: [LdapLogins],
})
export class LdapModule implements OnModuleInit {
  constructor(
    settings: SettingsService,
    private readonly methods: LoginMethods,
    private readonly logins: LdapLogins,
    private readonly mapSources: MapSources,
  ) {
    // At construction, before the settings service first reads the table.
    settings.register(ldapSettingDefinitions());
    // SPEC §21: each directory's AWX organization and team maps.
    for (const name of DIRECTORY_NAMES) settings.register(ldapMapSettingDefinitions(settingPrefix(name), isDn));
  }

  onModuleInit(): void {
    this.methods.register(this.logins.method());
    this.mapSources.register(ldapMapReader);
  }
}
