import { Module } from '@nestjs/common';
import { ExternalLoginsModule } from '../external-logins/external-logins.module';
import { ExternalMethods } from '../external-logins/external-methods';
import { ldapMapSettingDefinitions } from '../maps/map-settings';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../users/users.module';
import { LdapLogins } from './ldap-logins.service';
import { ldapMapReader } from './ldap-map-reader';
import { isDn } from './ldap-names';
import { DIRECTORY_NAMES, ldapSettingDefinitions, settingPrefix } from './ldap-settings';

const CATEGORY = 'ldap';

/**
 * LDAP and Active Directory logins (SPEC §14, issue 30): one folder and one registration (issue 55). The method
 * proves an attempt through the directories; the external-login pipeline does the rest. A remote method for
 * DISABLE_LOCAL_AUTH that proves passwords, so its users owe the second step; asked first of the password methods.
 */
@Module({
  imports: [UsersModule, SettingsModule, ExternalLoginsModule],
  providers: [LdapLogins],
  exports: [LdapLogins],
})
export class LdapModule {
  constructor(methods: ExternalMethods, logins: LdapLogins) {
    methods.register({
      method: logins.method(),
      order: 10,
      mapReaders: [ldapMapReader],
      // SPEC §21: each directory's AWX organization and team maps beside its §14 keys.
      settings: [{ category: CATEGORY, label: 'LDAP', definitions: [...ldapSettingDefinitions(), ...DIRECTORY_NAMES.flatMap((name) => ldapMapSettingDefinitions(settingPrefix(name), CATEGORY, isDn))] }],
      holderOf: (dn) => logins.holderOf(dn),
      holderNote: (user) => `DN ${user.ldapDn ?? 'unknown'}`,
      prove: (attempt, options) => logins.prove(attempt, options),
      explainer: {
        category: CATEGORY,
        servers: DIRECTORY_NAMES,
        unproven: { dn: null, groups: [] },
        lines: (answer) => {
          const groups = answer.groups as string[];
          return [`DN: ${(answer.dn as string | null) ?? '(none)'}`, `Groups: ${groups.length ? groups.join('; ') : '(none)'}`];
        },
      },
    });
  }
}
