import { Inject, Injectable, Logger } from '@nestjs/common';
import { InvalidClientError, InvalidScopeError, UnauthorizedClientError } from '@node-oauth/oauth2-server';
import type { FastifyRequest } from 'fastify';
import { clientIp } from '../common/client-ip';
import { traceOf } from '../common/request-context';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ApplicationsService, DEVICE_CODE_GRANT, grantsOf } from '../tokens/applications.service';
import { DEFAULT_SCOPE, parseScope } from '../tokens/scopes';
import { clientCredentials, formParameters } from './client-credentials';
import { DeviceCodes } from './device-codes.service';

/** The device authorization response (RFC 8628 §3.2). */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/**
 * `POST /api/o/device_authorization/` (RFC 8628 §3.1): a client of an application registered for the
 * device grant asks for a device code and a user code. Client authentication as at the token endpoint
 * (one parser, `clientCredentials`): a confidential client with its secret, a public one with its id alone.
 */
@Injectable()
export class DeviceAuthorizationEndpoint {
  private readonly logger = new Logger('oauth2');

  constructor(
    private readonly applications: ApplicationsService,
    private readonly deviceCodes: DeviceCodes,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async handle(req: FastifyRequest): Promise<DeviceAuthorizationResponse> {
    const body = formParameters(req.body);
    const client = clientCredentials(req, body);
    const app = await this.applications.findByClientId(client.clientId);
    if (!app || !this.applications.authenticates(app, client.clientSecret)) {
      this.logger.warn({ event: 'client_auth_failed', client_id: client.clientId, client_ip: clientIp(req), known: !!app, ...traceOf(req) });
      throw new InvalidClientError('Invalid client: client is invalid');
    }
    if (!grantsOf(app).includes(DEVICE_CODE_GRANT)) throw new UnauthorizedClientError('Unauthorized client: the application is not registered for the device grant');
    const scope = body.scope === undefined ? DEFAULT_SCOPE : parseScope(body.scope);
    if (!scope) throw new InvalidScopeError('Invalid scope: Requested scope is invalid');
    const issued = await this.deviceCodes.issue(app, scope, traceOf(req));
    const verificationUri = `${this.config.publicUrl}/api/o/device/`;
    return {
      device_code: issued.deviceCode,
      user_code: issued.userCode,
      verification_uri: verificationUri,
      verification_uri_complete: `${verificationUri}?user_code=${issued.userCode}`,
      expires_in: issued.expiresIn,
      interval: issued.interval,
    };
  }
}
