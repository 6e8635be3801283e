import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { FindOptionsWhere } from 'typeorm';
import { Clock } from '../common/clock';
import { FieldErrors, NotFound, PermissionDenied } from '../common/errors';
import { constantTimeEqual } from '../common/secret-box';
import { Application, ClientType, GrantType } from './application.entity';
import { ApplicationsRepository } from './applications.repository';
import { TokenActivity } from './token-activity';
import { TokensRepository } from './tokens.repository';
import { AuthenticationRecord } from '../common/authentication-record';
import { SERVICE_ACCOUNT } from '../users/account-policy';
import { cleanUsername } from '../users/usernames';
import { UserEvents } from '../users/user-events';
import { UsersService } from '../users/users.service';
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
export class ApplicationsService implements OnModuleInit {
  private readonly logger = new Logger('tokens');

  constructor(
    private readonly repository: ApplicationsRepository,
    private readonly clock: Clock,
    private readonly users: UsersService,
    private readonly userEvents: UserEvents,
    private readonly activity: TokenActivity,
    private readonly tokens: TokensRepository,
    private readonly events: AuthenticationRecord,
  ) {}

  /**
   * A machine account acts for its application's owner, so it ends with the owner (SPEC §15): deactivating
   * the owner deactivates it (which revokes its tokens, through its own `deactivated` event), and so does
   * deleting the owner, whose applications then go by cascade, past remove(). Reactivating the owner
   * reactivates nothing: a superuser does that, account by account. An identity source refusing the owner
   * (`access_revoked`, SPEC §21) does the same: every credential derived from the owner ends with its access.
   */
  onModuleInit(): void {
    this.userEvents.subscribe(async (event) => {
      if (event.type !== 'deleted' && event.type !== 'deactivated' && event.type !== 'access_revoked') return;
      for (const id of await this.repository.serviceAccountsOwnedBy(event.userId)) await this.deactivateServiceAccount(id, event.trace);
    });
  }

  /**
   * A client-credentials application comes with its own service account (SPEC §15); should the
   * application not be stored, the account is removed again rather than left behind.
   */
  async create(ownerId: number, input: ApplicationInput, trace: RequestTrace): Promise<{ application: Application; secret: string | null }> {
    const serviceAccount = input.authorization_grant_type === 'client-credentials' ? await this.newServiceAccount(input.name, trace) : null;
    try {
      return await this.insert(ownerId, input, serviceAccount?.id ?? null, trace);
    } catch (err) {
      if (serviceAccount) await this.users.remove(serviceAccount, trace);
      throw err;
    }
  }

  private async newServiceAccount(applicationName: string, trace: RequestTrace) {
    const account = await this.users.createWithFreeUsername(`svc-${cleanUsername(applicationName)}`, {}, trace, { externalAccount: SERVICE_ACCOUNT });
    if (!account) throw new FieldErrors({ name: ['No free service account name for this application name; choose another name.'] });
    return account;
  }

  private async insert(ownerId: number, input: ApplicationInput, serviceAccountId: number | null, trace: RequestTrace) {
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
      serviceAccountId,
      created: now,
      modified: now,
    };
    const application = await this.getOr404(await this.repository.insert(values));
    this.logger.log({
      event: 'application_created',
      application_id: application.id,
      user_id: ownerId,
      client_type: input.client_type,
      grant_type: input.authorization_grant_type,
      service_account_id: serviceAccountId,
      ...trace,
    });
    this.activity.application('create', application, trace);
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

  /**
   * Client type and grant type are fixed at creation (AWX makes the grant type read-only too). While an
   * application skips the consent page, only a superuser re-points it (SPEC §5): its codes, so write
   * tokens, go wherever `redirect_uris` say without anyone seeing a page, so an owner who could re-point
   * it would collect every user's. Checked again on the row as it is written, so a change that races a
   * superuser setting `skip_authorization` is refused too, and nothing of it is written. Only a superuser
   * writes `skip_authorization` (the caller refuses a change of it by anyone else; an unchanged value from
   * anyone else is not written back, so it cannot undo a superuser's change made meanwhile).
   */
  async update(app: Application, input: Partial<ApplicationInput>, actor: { isSuperuser: boolean }, trace: RequestTrace): Promise<Application> {
    const repoints = input.redirect_uris !== undefined && input.redirect_uris !== app.redirectUris;
    const whileUntrusted = repoints && !actor.isSuperuser;
    if (whileUntrusted && app.skipAuthorization) throw new PermissionDenied();
    const changes: Partial<Application> = { modified: this.clock.now() };
    if (input.name !== undefined) changes.name = input.name;
    if (input.description !== undefined) changes.description = input.description;
    if (input.redirect_uris !== undefined) changes.redirectUris = input.redirect_uris;
    if (input.skip_authorization !== undefined && actor.isSuperuser) changes.skipAuthorization = input.skip_authorization;
    if (!(await this.repository.update(app.id, changes, whileUntrusted ? { skipAuthorization: false } : {}))) {
      await this.getOr404(app.id); // gone meanwhile: 404; else trusted meanwhile
      throw new PermissionDenied();
    }
    this.logger.log({ event: 'application_updated', application_id: app.id, fields: Object.keys(input), ...trace });
    const updated = await this.getOr404(app.id);
    this.activity.application('update', updated, trace, app);
    return updated;
  }

  /**
   * Deleting an application deletes its tokens and codes with it (foreign keys cascade); its service
   * account is deactivated first, which revokes every token it holds (SPEC §15).
   */
  async remove(app: Application, trace: RequestTrace): Promise<void> {
    if (app.serviceAccountId) await this.deactivateServiceAccount(app.serviceAccountId, trace);
    // Its tokens go with it by a foreign key: read first, for one coalesced event and entry (SPEC §5, §23).
    const tokens = await this.tokens.firstTokens({ applicationId: app.id });
    await this.repository.delete(app.id);
    if (tokens.count) {
      this.events.record({ event: 'token_revoked', user: tokens.oneUser === null ? null : { id: tokens.oneUser }, reason: 'application_deleted', method: 'api', trace, details: { count: tokens.count } });
      this.activity.bulkDeleted(tokens.count, tokens.first, trace);
    }
    this.logger.log({ event: 'application_deleted', application_id: app.id, ...trace });
    this.activity.application('delete', app, trace);
  }

  /** The service account a client-credentials application acts as: null when gone or not a service account. */
  async serviceAccountOf(app: Application) {
    const account = app.serviceAccountId ? await this.users.findById(app.serviceAccountId) : null;
    return account?.externalAccount === SERVICE_ACCOUNT ? account : null;
  }

  private async deactivateServiceAccount(userId: number, trace: RequestTrace): Promise<void> {
    const account = await this.users.findById(userId);
    if (account?.isActive) await this.users.update(account, { is_active: false }, trace);
  }

  /** Confidential clients must present their secret; public clients have none to present. */
  authenticates(app: Application, secret: string | undefined): boolean {
    if (app.clientType === 'public') return !secret;
    if (!secret || !app.clientSecretHash) return false;
    return constantTimeEqual(secretHash(secret), app.clientSecretHash);
  }
}
