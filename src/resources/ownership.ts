import { readsEverything } from '../users/user-list';
import { NotFound, PermissionDenied } from '../common/errors';
import type { Principal } from '../common/principal';

/**
 * Who may see and change the objects users create (hosts, credentials, job templates, jobs), in one
 * place for every resource. There are no organisations or roles: the creating user owns the object;
 * superusers act on everything; system auditors read everything; other users see nothing of another's.
 * An object's owner may be null when the creating user was deleted: then only superusers act on it.
 */

/** The owner id a list is restricted to, or undefined when the caller sees every object. */
export function ownerFilter(principal: Principal): number | undefined {
  return readsEverything(principal.user) ? undefined : principal.user.id;
}

export function canRead(principal: Principal, ownerId: number | null): boolean {
  return readsEverything(principal.user) || ownerId === principal.user.id;
}

export function canChange(principal: Principal, ownerId: number | null): boolean {
  return principal.user.isSuperuser || ownerId === principal.user.id;
}

/** 404 for objects the caller cannot see (ids reveal nothing), 403 for those it sees but may not change. */
export function assertCanChange(principal: Principal, ownerId: number | null): void {
  if (!canRead(principal, ownerId)) throw new NotFound();
  if (!canChange(principal, ownerId)) throw new PermissionDenied();
}
