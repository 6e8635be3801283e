import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module';
import { UsersModule } from '../users/users.module';
import { AuthenticationEventsModule } from '../authentication-events/authentication-events.module';
import { SettingsModule } from '../settings/settings.module';
import { AdminPageController } from './admin.controller';
import { ProfileController } from './profile.controller';
import { StaticAssets } from './static-assets';
import { StaticAssetsController } from './static-assets.controller';

/**
 * The browser pages that are not the login form (which stays with `auth`): the profile page and
 * the static files of every page. Its scripts talk to the JSON API like any other client.
 */
@Module({
  imports: [SessionsModule, SettingsModule, UsersModule, AuthenticationEventsModule],
  controllers: [ProfileController, AdminPageController, StaticAssetsController],
  providers: [StaticAssets],
})
export class UiModule {}
