import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SettingsController } from './settings.controller';
import { Setting } from './setting.entity';
import { SettingsService } from './settings.service';
import { InstallationUuid } from './installation-uuid';
import { SettingsActivity } from './settings-activity';

/** Runtime settings; imports no feature module (everything else reads it). */
@Module({
  imports: [TypeOrmModule.forFeature([Setting])],
  controllers: [SettingsController],
  providers: [SettingsService, InstallationUuid, SettingsActivity],
  exports: [SettingsService, InstallationUuid],
})
export class SettingsModule {}
