import { Module } from '@nestjs/common';
import { ExternalLoginsModule } from '../external-logins/external-logins.module';
import { ExternalMethods } from '../external-logins/external-methods';
import { SettingsModule } from '../settings/settings.module';
import { SettingsService } from '../settings/settings.service';
import { RadiusLogins } from './radius-logins.service';
import { radiusMapReader } from './radius-map-reader';
import { RADIUS_CATEGORY, radiusSecretAddress, radiusSettingDefinitions, radiusSettingsCheck } from './radius-settings';

/**
 * RADIUS logins (SPEC §20, issue 41): one folder and one registration (issue 55). The method proves an
 * attempt by an Access-Request; the external-login pipeline does the rest. A remote method for
 * DISABLE_LOCAL_AUTH that proves passwords, so its users owe the second step, asked after LDAP (order 20).
 */
@Module({
  imports: [SettingsModule, ExternalLoginsModule],
  providers: [RadiusLogins],
})
export class RadiusModule {
  constructor(methods: ExternalMethods, settings: SettingsService, logins: RadiusLogins) {
    methods.register({
      method: logins.method(),
      order: 20,
      mapReaders: [radiusMapReader],
      settings: [{ category: RADIUS_CATEGORY, label: 'RADIUS', definitions: radiusSettingDefinitions(), checks: [radiusSettingsCheck((key) => settings.get(key))], derivations: [radiusSecretAddress((key) => settings.get(key))] }],
      prove: (attempt, options) => logins.prove(attempt, options),
      explainer: {
        category: RADIUS_CATEGORY,
        unproven: { reply: null, attributes: {} },
        lines: (answer) => {
          const attributes = Object.entries(answer.attributes as Record<string, string[]>).map(([name, values]) => `${name}=${values.join(' | ')}`);
          return [`Reply: ${(answer.reply as string | null) ?? '(none)'}`, `Attributes: ${attributes.length ? attributes.join('; ') : '(none)'}`];
        },
      },
    });
  }
}
