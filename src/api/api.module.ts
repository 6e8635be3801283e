import { Module } from '@nestjs/common';
import { SettingsModule } from '../settings/settings.module';
import { ApiRootController } from './api-root.controller';

@Module({ imports: [SettingsModule], controllers: [ApiRootController] })
export class ApiModule {}
