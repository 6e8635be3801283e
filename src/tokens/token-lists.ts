import type { ListSpec } from '../common/list-query';
import { readsEverything, relatedUser } from '../users/user-list';

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
  relations: { user: relatedUser('user') },
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
    user: relatedUser('user'),
    // Superusers and system auditors read every application, its owner reads it; its summary is its id and name.
    application: { relation: 'application', spec: () => APPLICATION_LIST, summary: ['id', 'name'], readableBy: readsEverything, readableByOwner: 'userId' },
  },
  search: ['description'],
};
