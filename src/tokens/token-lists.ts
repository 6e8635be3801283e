import type { ListSpec } from '../common/list-query/list-spec';
import { ownerUser, readsEverything } from '../users/user-list';

/** What `/api/v2/applications/` may be filtered and ordered on (SPEC §19). */
export const APPLICATION_LIST: ListSpec = {
  fields: {
    id: { property: 'id', type: 'int' },
    name: { property: 'name', type: 'string' },
    description: { property: 'description', type: 'string' },
    client_id: { property: 'clientId', type: 'string' },
    client_type: { property: 'clientType', type: 'string' },
    authorization_grant_type: { property: 'authorizationGrantType', type: 'string' },
    redirect_uris: { property: 'redirectUris', type: 'string' },
    skip_authorization: { property: 'skipAuthorization', type: 'bool' },
    service_account: { property: 'serviceAccountId', type: 'int' },
    created: { property: 'created', type: 'datetime' },
    modified: { property: 'modified', type: 'datetime' },
    client_secret: 'secret',
  },
  relations: { user: ownerUser('user') },
  search: ['name', 'description'],
};

/** What every token list may be filtered and ordered on; the secrets never. */
export const TOKEN_LIST: ListSpec = {
  fields: {
    id: { property: 'id', type: 'int' },
    description: { property: 'description', type: 'string' },
    scope: { property: 'scope', type: 'string' },
    expires: { property: 'expires', type: 'datetime' },
    last_used: { property: 'lastUsed', type: 'datetime' },
    last_used_ip: { property: 'lastUsedIp', type: 'string' },
    created: { property: 'created', type: 'datetime' },
    modified: { property: 'modified', type: 'datetime' },
    token: 'secret',
    refresh_token: 'secret',
  },
  relations: {
    user: ownerUser('user'),
    // Superusers and system auditors read every application; a token of anyone's application may be the caller's,
    // so beyond its summary (its id and name) the application is closed to everyone else (issue 56).
    application: { relation: 'application', spec: () => APPLICATION_LIST, summary: ['id', 'name'], readableBy: readsEverything },
  },
  search: ['description'],
};
