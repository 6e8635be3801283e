import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ActivityRecord, StreamObject } from '../common/activity-record';
import { changesOf, fieldsOf, namedSummary } from '../common/activity-changes';
import type { RequestTrace } from '../common/request-context';
import { User } from '../users/user.entity';
import type { AccessToken } from './access-token.entity';
import { Application } from './application.entity';

/** AWX's censor: a token's value in the stream, always. */
const CENSORED = '************';

const applicationFields = (a: Application) => ({
  name: a.name, description: a.description, client_type: a.clientType, redirect_uris: a.redirectUris,
  authorization_grant_type: a.authorizationGrantType, skip_authorization: a.skipAuthorization,
});

/** What the stream reads of a token. */
type TokenRow = Pick<AccessToken, 'id' | 'userId' | 'applicationId' | 'description' | 'scope'>;

const tokenSummary = (t: TokenRow) => ({ id: t.id, user_id: t.userId, description: t.description, application_id: t.applicationId, scope: t.scope });

/**
 * The stream's entries of applications (never the client secret) and access tokens (the value censored; a refresh
 * token is never recorded), SPEC §23.
 */
@Injectable()
export class TokenActivity {
  constructor(
    private readonly record: ActivityRecord,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  application(operation: 'create' | 'update' | 'delete', app: Application, trace: RequestTrace, before?: Application): void {
    const changes = before ? changesOf(applicationFields(before), applicationFields(app)) : { ...fieldsOf(applicationFields(app)), id: app.id };
    if (!Object.keys(changes).length) return;
    this.record.record({ operation, object1: 'o_auth2_application', changes, objects: [{ kind: 'o_auth2_application', id: app.id, summary: namedSummary(app) }], trace });
  }

  /**
   * A bulk revocation (SPEC §5), coalesced as §23's `throttled`: one `delete` entry with the count and the first
   * 100 tokens' summaries; nothing when there were none.
   */
  bulkDeleted(count: number, first: TokenRow[], trace: RequestTrace): void {
    if (!count) return;
    this.record.record({ operation: 'delete', object1: 'o_auth2_access_token', changes: { count }, objects: first.map((t) => ({ kind: 'o_auth2_access_token', id: t.id, summary: tokenSummary(t) })), trace });
  }

  /** A token made or deleted: its fields with the application and user by name (AWX shows a related object as its name). */
  async token(operation: 'create' | 'delete', token: TokenRow, trace: RequestTrace, known: { username?: string; application?: Application | null } = {}): Promise<void> {
    const application = known.application !== undefined ? known.application : token.applicationId ? await this.dataSource.manager.findOneBy(Application, { id: token.applicationId }) : null;
    const username = known.username ?? (await this.dataSource.manager.findOne(User, { select: { id: true, username: true }, where: { id: token.userId } }))?.username ?? '';
    const changes = { ...fieldsOf({ description: token.description, scope: token.scope, application: application?.name ?? null, user: username }), token: CENSORED, id: token.id };
    const objects: StreamObject[] = [{ kind: 'o_auth2_access_token', id: token.id, summary: tokenSummary(token) }];
    if (application) objects.push({ kind: 'o_auth2_application', id: application.id, summary: namedSummary(application) });
    this.record.record({ operation, object1: 'o_auth2_access_token', changes, objects, trace });
  }
}
