import { Credential } from '../credentials/credential.entity';
import { Host } from '../hosts/host.entity';
import { Job } from '../job-templates/job.entity';
import { JobTemplate } from '../job-templates/job-template.entity';
import { Session } from '../sessions/session.entity';
import { Setting } from '../settings/setting.entity';
import { SocialAuth } from '../sso/social-auth.entity';
import { SsoState } from '../sso/sso-state.entity';
import { AccessToken } from '../tokens/access-token.entity';
import { Application } from '../tokens/application.entity';
import { AuthorizationCode } from '../tokens/authorization-code.entity';
import { RefreshToken } from '../tokens/refresh-token.entity';
import { LoginFailure } from '../users/login-failure.entity';
import { User } from '../users/user.entity';

/** Every entity, listed once for the app and the migration CLI alike. */
export const ENTITIES = [
  User, Setting, Session, LoginFailure, Application, AccessToken, RefreshToken, AuthorizationCode,
  Host, Credential, JobTemplate, Job, SocialAuth, SsoState,
];
