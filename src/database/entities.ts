import { Session } from '../sessions/session.entity';
import { Setting } from '../settings/setting.entity';
import { SocialAuth } from '../sso/social-auth.entity';
import { SsoState } from '../sso/sso-state.entity';
import { LoginFailure } from '../users/login-failure.entity';
import { User } from '../users/user.entity';

/** Every entity, listed once for the app and the migration CLI alike. */
export const ENTITIES = [User, Setting, Session, LoginFailure, SocialAuth, SsoState];
