import type { ListSpec, RelatedList } from '../common/list-query/list-spec';
import type { Account } from '../common/principal';

/** What `/api/v2/users/` (and every path through a user, e.g. `user__username`) may be filtered and ordered on. */
export const USER_LIST: ListSpec = {
  fields: {
    id: { property: 'id', type: 'int' },
    username: { property: 'username', type: 'string' },
    first_name: { property: 'firstName', type: 'string' },
    last_name: { property: 'lastName', type: 'string' },
    email: { property: 'email', type: 'string' },
    is_superuser: { property: 'isSuperuser', type: 'bool' },
    is_system_auditor: { property: 'isSystemAuditor', type: 'bool' },
    is_active: { property: 'isActive', type: 'bool' },
    external_account: { property: 'externalAccount', type: 'string' },
    ldap_dn: { property: 'ldapDn', type: 'string' },
    last_login: { property: 'lastLogin', type: 'datetime' },
    created: { property: 'created', type: 'datetime' },
    modified: { property: 'modified', type: 'datetime' },
    password: 'secret',
  },
  search: ['username', 'first_name', 'last_name', 'email'],
};

/**
 * Superusers and system auditors read every object: users, applications, owned resources. Anyone else reads
 * only their own (and of users, themselves).
 */
export function readsEverything(viewer: Pick<Account, 'isSuperuser' | 'isSystemAuditor'>): boolean {
  return viewer.isSuperuser || viewer.isSystemAuditor;
}

const USER_SUMMARY = ['id', 'username', 'first_name', 'last_name'];

/**
 * A related user the list does not tie to the caller (`modified_by__…`: whoever last changed the row): its
 * summary (what every list shows of it) is open to all, the rest only to callers who may read every user,
 * whatever the rows hold (issue 56).
 */
export function relatedUser(relation: string): RelatedList {
  return { relation, spec: () => USER_LIST, summary: USER_SUMMARY, readableBy: readsEverything };
}

/**
 * The user the caller's own rows belong to (`created_by`, `launched_by` of what the caller owns, a token's or
 * an application's `user`): for a caller who does not read every user, the list's rule makes it the caller, so
 * the rest is open to them too (issue 40), a guard checking that no row reaches anyone else.
 */
export function ownerUser(relation: string): RelatedList {
  return { ...relatedUser(relation), tiedToViewer: 'id' };
}
