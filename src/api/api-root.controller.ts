import { Controller, Get, Inject } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Public } from '../common/public.decorator';
import { SettingsService } from '../settings/settings.service';
import { DatabaseHealth } from '../database/database-health';
import { ServiceUnavailable } from '../common/errors';

/** How long a ping waits for a probe of a database marked down before it answers 503. */
const PING_PROBE_WAIT_MS = 250;

/** `/api/`, `/api/v2/` and the cheap public ping. */
@Controller('api')
export class ApiRootController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly settings: SettingsService,
    private readonly health: DatabaseHealth,
  ) {}

  @Public()
  @Get()
  root() {
    const out: Record<string, unknown> = {
      description: `${this.config.productName} REST API`,
      current_version: '/api/v2/',
      available_versions: { v2: '/api/v2/' },
      login_redirect_override: this.settings.get('LOGIN_REDIRECT_OVERRIDE'),
      // SPEC §22: what a UI shows before anyone logs in.
      custom_logo: this.settings.get<string>('CUSTOM_LOGO'),
      custom_login_info: this.settings.get<string>('CUSTOM_LOGIN_INFO'),
      login_consent_required: this.settings.get<boolean>('LOGIN_CONSENT_REQUIRED'),
    };
    if (this.config.oauth2ProviderEnabled) out.oauth2 = '/api/o/';
    return out;
  }

  @Public()
  @Get('v2')
  v2() {
    const routes: Record<string, string> = {
      ping: '/api/v2/ping/',
      auth: '/api/v2/auth/',
      me: '/api/v2/me/',
      users: '/api/v2/users/',
      login_locks: '/api/v2/login_locks/',
      settings: '/api/v2/settings/',
      metrics: '/api/v2/metrics/',
      hosts: '/api/v2/hosts/',
      credentials: '/api/v2/credentials/',
      job_templates: '/api/v2/job_templates/',
      jobs: '/api/v2/jobs/',
      organizations: '/api/v2/organizations/',
      teams: '/api/v2/teams/',
      sessions: '/api/v2/sessions/',
      authentication_events: '/api/v2/authentication_events/',
      activity_stream: '/api/v2/activity_stream/',
    };
    if (this.config.oauth2ProviderEnabled) {
      routes.tokens = '/api/v2/tokens/';
      routes.applications = '/api/v2/applications/';
    }
    return routes;
  }

  @Public()
  @Get('v2/ping')
  ping() {
    // 503 while the database does not answer. Up, the ping never queries it (and answers synchronously:
    // it is the bench's baseline); marked down, it probes now (waiting at most PING_PROBE_WAIT_MS), so it
    // agrees with what requests see.
    if (!this.health.isDown) return this.pong();
    return this.health.answers(PING_PROBE_WAIT_MS).then((up) => {
      if (!up) throw new ServiceUnavailable();
      return this.pong();
    });
  }

  private pong() {
    return { ha: false, version: this.config.productVersion, active_node: this.config.nodeName };
  }
}
