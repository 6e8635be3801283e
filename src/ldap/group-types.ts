import { escapeFilterValue, isUnder, normalizeDn } from './ldap-names';
import type { GroupTypeName, SearchScope, SearchSetting } from './ldap-settings';

/** An entry as the directory answered it; attribute names lower-cased (directories match them without case). */
export interface DirectoryEntry {
  dn: string;
  attributes: Record<string, string[]>;
}

/** What the group types need of a directory connection: searches and compares, nothing else. */
export interface DirectoryReader {
  search(base: string, scope: SearchScope, filter: string, attributes: string[]): Promise<DirectoryEntry[]>;
  compare(dn: string, attribute: string, value: string): Promise<boolean>;
}

/** A user found in the directory: its DN and the attributes read with it. */
export interface DirectoryUser {
  dn: string;
  attributes: Record<string, string[]>;
}

/** How far a nested type follows membership: rounds of the walk, groups in all, DNs per search. */
export const NESTED_MAX_ROUNDS = 32;
export const NESTED_MAX_GROUPS = 5000;
const DNS_PER_SEARCH = 50;

/**
 * django-auth-ldap's group types, as AWX configured them (SPEC §14): which groups a user is in, found by
 * a search under GROUP_SEARCH, and whether the user is in one given group. The Active Directory types are
 * the member-DN types on `member`, as in django-auth-ldap; what makes Active Directory different is in its
 * answers (upper-case DNs, escaped commas in names, referrals), which the DN normalisation and the filter
 * escaping handle (group-types.spec.ts feeds them such answers).
 */
export interface GroupType {
  readonly name: GroupTypeName;
  /** The attribute that holds a member (shown by the explainer). */
  readonly memberAttr: string;
  readonly nested: boolean;
  /** Every group of the user under `search`, each once (transitively for nested types; cycles end the walk). */
  userGroups(user: DirectoryUser, search: SearchSetting, reader: DirectoryReader): Promise<DirectoryEntry[]>;
  /** Whether the user is a direct member of `groupDn`, asked of that entry itself (a compare). */
  isDirectMember(user: DirectoryUser, groupDn: string, reader: DirectoryReader): Promise<boolean>;
}

/** `(&<group filter><term>)`: django-auth-ldap's search_with_additional_term_string. */
function withTerm(filter: string, term: string): string {
  return `(&${filter}${term})`;
}

class MemberDnGroupType implements GroupType {
  readonly nested: boolean = false;

  constructor(
    readonly name: GroupTypeName,
    readonly memberAttr: string,
  ) {}

  userGroups(user: DirectoryUser, search: SearchSetting, reader: DirectoryReader): Promise<DirectoryEntry[]> {
    return reader.search(search.base, search.scope, withTerm(search.filter, `(${this.memberAttr}=${escapeFilterValue(user.dn)})`), ['cn']);
  }

  isDirectMember(user: DirectoryUser, groupDn: string, reader: DirectoryReader): Promise<boolean> {
    return reader.compare(groupDn, this.memberAttr, user.dn);
  }
}

/**
 * Membership followed through groups of groups: the groups that have any of the DNs found so far as a
 * member, round after round, never asking with the same DN twice, so a cycle (A in B, B in A) ends the
 * walk. Bounded in rounds and groups: a directory answering without end cannot hold a login forever.
 */
class NestedMemberDnGroupType extends MemberDnGroupType {
  override readonly nested = true;

  override async userGroups(user: DirectoryUser, search: SearchSetting, reader: DirectoryReader): Promise<DirectoryEntry[]> {
    const found = new Map<string, DirectoryEntry>();
    const asked = new Set<string>();
    let next = [user.dn];
    for (let round = 0; round < NESTED_MAX_ROUNDS && next.length && found.size < NESTED_MAX_GROUPS; round++) {
      for (const dn of next) asked.add(normalizeDn(dn));
      const discovered: string[] = [];
      for (let i = 0; i < next.length; i += DNS_PER_SEARCH) {
        const terms = next.slice(i, i + DNS_PER_SEARCH).map((dn) => `(${this.memberAttr}=${escapeFilterValue(dn)})`);
        const term = terms.length === 1 ? terms[0] : `(|${terms.join('')})`;
        for (const entry of await reader.search(search.base, search.scope, withTerm(search.filter, term), ['cn'])) {
          const key = normalizeDn(entry.dn);
          if (found.has(key)) continue;
          found.set(key, entry);
          if (!asked.has(key)) discovered.push(entry.dn);
        }
      }
      next = discovered;
    }
    return [...found.values()];
  }
}

/**
 * posixGroup: members are named by their uid in `memberUid`, and a user's primary group by its
 * `gidNumber` (django-auth-ldap's PosixGroupType).
 */
class PosixGroupType implements GroupType {
  readonly name = 'PosixGroupType' as const;
  readonly memberAttr = 'memberUid';
  readonly nested = false;

  async userGroups(user: DirectoryUser, search: SearchSetting, reader: DirectoryReader): Promise<DirectoryEntry[]> {
    const uid = user.attributes.uid?.[0];
    if (uid === undefined) return [];
    const gid = user.attributes.gidnumber?.[0];
    const byUid = `(memberUid=${escapeFilterValue(uid)})`;
    const term = gid === undefined ? byUid : `(|(gidNumber=${escapeFilterValue(gid)})${byUid})`;
    return reader.search(search.base, search.scope, withTerm(search.filter, term), ['cn']);
  }

  async isDirectMember(user: DirectoryUser, groupDn: string, reader: DirectoryReader): Promise<boolean> {
    const uid = user.attributes.uid?.[0];
    if (uid !== undefined && (await reader.compare(groupDn, 'memberUid', uid))) return true;
    const gid = user.attributes.gidnumber?.[0];
    return gid !== undefined && reader.compare(groupDn, 'gidNumber', gid);
  }
}

export function groupType(name: GroupTypeName, params: { member_attr?: string }): GroupType {
  switch (name) {
    case 'MemberDNGroupType':
      return new MemberDnGroupType(name, params.member_attr ?? 'member');
    case 'NestedMemberDNGroupType':
      return new NestedMemberDnGroupType(name, params.member_attr ?? 'member');
    case 'GroupOfNamesType':
    case 'ActiveDirectoryGroupType':
      return new MemberDnGroupType(name, 'member');
    case 'NestedGroupOfNamesType':
    case 'NestedActiveDirectoryGroupType':
      return new NestedMemberDnGroupType(name, 'member');
    case 'GroupOfUniqueNamesType':
      return new MemberDnGroupType(name, 'uniqueMember');
    case 'NestedGroupOfUniqueNamesType':
      return new NestedMemberDnGroupType(name, 'uniqueMember');
    case 'PosixGroupType':
      return new PosixGroupType();
  }
}

/** The attributes a user entry is read with: the mapped ones, and what posix groups need. */
export function userAttributes(attrMap: Record<string, string | undefined>): string[] {
  // '*': every user attribute of the entry, which the maps read (SPEC §21); the named ones besides, in case.
  return [...new Set(['*', ...Object.values(attrMap).filter((a): a is string => !!a), 'uid', 'gidNumber'])];
}

/** Why a group DN is, or is not, one of the user's: the answer and the words the explainer shows. */
export interface MembershipAnswer {
  member: boolean;
  how: string;
}

/**
 * Membership of one configured group (REQUIRE_GROUP, DENY_GROUP, a flag's group): in the groups the
 * search found; or, for a group outside GROUP_SEARCH (or with no GROUP_SEARCH), asked of the group entry
 * directly, as django-auth-ldap's is_member does.
 */
export async function membershipOf(
  groupDn: string,
  found: Map<string, DirectoryEntry>,
  ctx: { user: DirectoryUser; type: GroupType; search: SearchSetting | null; reader: DirectoryReader },
): Promise<MembershipAnswer> {
  if (found.has(normalizeDn(groupDn))) return { member: true, how: 'found by the group search' };
  if (ctx.search && isUnder(groupDn, ctx.search.base)) return { member: false, how: 'not among the groups the group search found' };
  const member = await ctx.type.isDirectMember(ctx.user, groupDn, ctx.reader);
  return { member, how: member ? `its ${ctx.type.memberAttr} names the user (asked of the group)` : `its ${ctx.type.memberAttr} does not name the user (asked of the group)` };
}
