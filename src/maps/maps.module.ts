import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OrganizationsModule } from '../organizations/organizations.module';
import { SettingsModule } from '../settings/settings.module';
import { SettingsService } from '../settings/settings.service';
import { mapSettingDefinitions } from './map-settings';
import { UsersModule } from '../users/users.module';
import { ClaimsSweeper } from './claims-sweeper.service';
import { LoginClaims } from './login-claims.entity';
import { LoginClaimsRepository } from './login-claims.repository';
import { MapSources } from './map-sources';
import { MapsDryRunController } from './maps-dry-run.controller';
import { MapsDryRun } from './maps-dry-run.service';
import { MapsService } from './maps.service';

/**
 * What an identity source grants (SPEC §21, issue 42): the second half of every external login's
 * provisioning step, the stored claims and the dry run. Login methods register how they read AWX's map
 * settings (MapSources) and hand each login's claims to MapsService; nothing here names a method.
 */
@Module({
  imports: [TypeOrmModule.forFeature([LoginClaims]), UsersModule, SettingsModule, OrganizationsModule],
  controllers: [MapsDryRunController],
  providers: [MapSources, MapsService, MapsDryRun, LoginClaimsRepository, ClaimsSweeper],
  exports: [MapSources, MapsService, ClaimsSweeper],
})
export class MapsModule {
  constructor(settings: SettingsService, sources: MapSources) {
    // At construction, before the settings service first reads the table: AWX's global maps and AUTHENTICATION_MAPS,
    // whose rule sources are the registered methods' (read when a value is validated, after every method registered).
    settings.register(mapSettingDefinitions(sources));
  }
}
