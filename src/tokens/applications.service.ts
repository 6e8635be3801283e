import { Injectable, Logger } from '@nestjs/common';
import type { FindOptionsWhere } from 'typeorm';
import { Clock } from '../common/clock';
import { NotFound } from '../common/errors';
import { constantTimeEqual } from '../common/secret-box';
import { Application, ClientType, GrantType } from './application.entity';
import { ApplicationsRepository } from './applications.repository';
import { newSecret, randomBase62, secretHash } from './token-secrets';
import { RequestTrace } from '../common/request-context';

export interface ApplicationInput {
  name: string;
  description: string;
  client_type: ClientType;
  redirect_uris: string;
  authorization_grant_type: GrantType;
  skip_authorization: boolean;
}

/** RFC 8628 §3.4: the device grant's `grant_type`. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** The token-endpoint grants each application type may use (RFC 6749 names). */
export function grantsOf(app: Application): string[] {
  if (app.authorizationGrantType === 'password') return ['password', 'refresh_token'];
  if (app.authorizationGrantType === 'authorization-code') return ['authorization_code', 'refresh_token'];
  if (app.authorizationGrantType === 'client-credentials') return ['client_credentials']; // no refresh token (RFC 6749 §4.4.3)
  if (app.authorizationGrantType === 'device-code') return [DEVICE_CODE_GRANT, 'refresh_token'];
  return []; // implicit: tokens come from the authorization endpoint only, never refreshed
}

/** OAuth 2 clients. The client secret is generated here, returned once, and stored only as a hash. */
@Injectable()
export class ApplicationsService {
  private readonly logger = new Logger('tokens');

  constructor(
    private readonly repository: ApplicationsRepository,
    private readonly clock: Clock,
  ) {}

  async create(ownerId: number, input: ApplicationInput, trace: RequestTrace): Promise<{ application: Application; secret: string | null }> {
    const now = this.clock.now();
    const secret = input.client_type === 'confidential' ? newSecret('clientSecret') : null;
    const values = {
      name: input.name,
      description: input.description ?? '',
      clientId: randomBase62(40),
      clientSecretHash: secret ? secretHash(secret) : null,
      clientType: input.client_type,
      redirectUris: input.redirect_uris ?? '',
      authorizationGrantType: input.authorization_grant_type,
      skipAuthorization: input.skip_authorization ?? false,
      userId: ownerId,
      created: now,
      modified: now,
    };
    const application = await this.getOr404(await this.repository.insert(values));
    this.logger.log({ event: 'application_created', application_id: application.id, user_id: ownerId, client_type: input.client_type, grant_type: input.authorization_grant_type, ...trace });
    return { application, secret };
  }

  findById(id: number): Promise<Application | null> {
    return this.repository.findById(id);
  }

  async getOr404(id: number): Promise<Application> {
    const app = await this.findById(id);
    if (!app) throw new NotFound();
    return app;
  }

  findByClientId(clientId: string): Promise<Application | null> {
    if (!clientId || clientId.length > 100) return Promise.resolve(null);
    return this.repository.findByClientId(clientId);
  }

  /** The applications a list shows, with their owner, before its filters and page. */
  listQuery(where: FindOptionsWhere<Application>) {
    return this.repository.listQuery(where);
  }

  /** Client type and grant type are fixed at creation (AWX makes the grant type read-only too). */
  async update(app: Application, input: Partial<ApplicationInput>, trace: RequestTrace): Promise<Application> {
    const changes: Partial<Application> = { modified: this.clock.now() };
    if (input.name !== undefined) changes.name = input.name;
    if (input.description !== undefined) changes.description = input.description;
    if (input.redirect_uris !== undefined) changes.redirectUris = input.redirect_uris;
    if (input.skip_authorization !== undefined) changes.skipAuthorization = input.skip_authorization;
    await this.repository.update(app.id, changes);
    this.logger.log({ event: 'application_updated', application_id: app.id, fields: Object.keys(input), ...trace });
    return this.getOr404(app.id);
  }

  /** Deleting an application deletes its tokens and codes with it (foreign keys cascade). */
  async remove(app: Application, trace: RequestTrace): Promise<void> {
    await this.repository.delete(app.id);
    this.logger.log({ event: 'application_deleted', application_id: app.id, ...trace });
  }

  /** Confidential clients must present their secret; public clients have none to present. */
  authenticates(app: Application, secret: string | undefined): boolean {
    if (app.clientType === 'public') return !secret;
    if (!secret || !app.clientSecretHash) return false;
    return constantTimeEqual(secretHash(secret), app.clientSecretHash);
  }
}
