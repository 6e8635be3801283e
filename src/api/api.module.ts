import { Module } from '@nestjs/common';
import { SettingsModule } from '../settings/settings.module';
import { ApiRootController } from './api-root.controller';
import { MetricsController } from './metrics.controller';

@Module({ imports: [SettingsModule], controllers: [ApiRootController, MetricsController] })
export class ApiModule {}
