import { Module, OnModuleInit } from '@nestjs/common';
import { SettingsModule } from '../settings/settings.module';
import { SettingsService } from '../settings/settings.service';
import { LoginMethods } from '../users/login-methods';
import { UsersModule } from '../users/users.module';
import { MapsModule } from '../maps/maps.module';
import { RadiusExplainer } from './radius-explainer.service';
import { RadiusLogins } from './radius-logins.service';
import { RADIUS_CATEGORY, radiusSecretAddress, radiusSettingDefinitions, radiusSettingsCheck } from './radius-settings';
import { RadiusTestController } from './radius-test.controller';
import { RadiusStrategy } from './radius.strategy';
import { MapSources } from '../maps/map-sources';
import { radiusMapReader } from './radius-map-reader';

/**
 * RADIUS logins (SPEC §20, issue 41): one folder and one registration, as docs/architecture.md says a login
 * method arrives. It registers its settings (the `radius` category and its cross-key rules) and its login
 * method: a remote method for DISABLE_LOCAL_AUTH that proves passwords, so its users owe the second step,
 * asked after local accounts and after LDAP (the application imports this module after LdapModule, and
 * password methods are asked in the order they register).
 */
@Module({
  imports: [UsersModule, SettingsModule, MapsModule],
  controllers: [RadiusTestController],
  providers: [RadiusLogins, RadiusExplainer, RadiusStrategy],
  exports: [RadiusExplainer],
})
export class RadiusModule implements OnModuleInit {
  constructor(
    settings: SettingsService,
    private readonly methods: LoginMethods,
    private readonly logins: RadiusLogins,
    private readonly mapSources: MapSources,
  ) {
    // At construction, before the settings service first reads the table.
    const get = (key: string) => settings.get(key);
    settings.register(radiusSettingDefinitions());
    settings.addCheck(RADIUS_CATEGORY, radiusSettingsCheck(get));
    settings.addDerivation(RADIUS_CATEGORY, radiusSecretAddress(get));
  }

  onModuleInit(): void {
    this.methods.register(this.logins.method());
    this.mapSources.register(radiusMapReader);
  }
}
