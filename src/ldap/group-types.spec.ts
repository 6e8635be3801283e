import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FilterParser } from 'ldapts';
import { DirectoryEntry, DirectoryReader, groupType, membershipOf, NESTED_MAX_ROUNDS } from './group-types';
import { isUnder, normalizeDn } from './ldap-names';
import type { SearchScope, SearchSetting } from './ldap-settings';

type Filter = { type: number; filters?: Filter[]; filter?: Filter; attribute?: string; value?: string };
const DN_VALUED = new Set(['member', 'uniquemember']);

/**
 * A directory that answers as Active Directory does, which slapd cannot: DNs spelled in upper case, member
 * values in another case and spacing than the entries they name, names with escaped commas, groups that
 * nest without end. It evaluates the filters the group types send (equality, and, or, presence), matching
 * DN-valued attributes as DNs, the rest without case, and records them.
 */
class ActiveDirectoryAnswers implements DirectoryReader {
  readonly filters: string[] = [];
  constructor(private readonly entries: DirectoryEntry[]) {}

  async search(base: string, scope: SearchScope, filter: string): Promise<DirectoryEntry[]> {
    this.filters.push(filter);
    const parsed = FilterParser.parseString(filter) as unknown as Filter;
    return this.entries.filter((e) => inScope(e.dn, base, scope) && matches(parsed, e));
  }

  async compare(dn: string, attribute: string, value: string): Promise<boolean> {
    const entry = this.entries.find((e) => normalizeDn(e.dn) === normalizeDn(dn));
    return !!entry && valuesOf(entry, attribute).some((v) => same(attribute, v, value));
  }
}

function inScope(dn: string, base: string, scope: SearchScope): boolean {
  if (scope === 'SCOPE_BASE') return normalizeDn(dn) === normalizeDn(base);
  if (scope === 'SCOPE_ONELEVEL') return isUnder(dn, base) && normalizeDn(dn).split(',').length === normalizeDn(base).split(',').length + 1;
  return isUnder(dn, base);
}

function valuesOf(entry: DirectoryEntry, attribute: string): string[] {
  return attribute.toLowerCase() === 'objectclass' ? (entry.attributes.objectclass ?? []) : (entry.attributes[attribute.toLowerCase()] ?? []);
}

function same(attribute: string, a: string, b: string): boolean {
  return DN_VALUED.has(attribute.toLowerCase()) ? normalizeDn(a) === normalizeDn(b) : a.toLowerCase() === b.toLowerCase();
}

function matches(filter: Filter, entry: DirectoryEntry): boolean {
  if (filter.filters && filter.type === 0xa0) return filter.filters.every((f) => matches(f, entry));
  if (filter.filters && filter.type === 0xa1) return filter.filters.some((f) => matches(f, entry));
  if (filter.type === 0x87) return valuesOf(entry, filter.attribute!).length > 0;
  if (filter.type === 0xa3) return valuesOf(entry, filter.attribute!).some((v) => same(filter.attribute!, v, filter.value!));
  throw new Error(`filter type ${filter.type} not expected from a group type`);
}

const group = (dn: string, members: string[]): DirectoryEntry => ({ dn, attributes: { objectclass: ['top', 'group'], member: members } });
const BASE = 'DC=corp,DC=example';
const SEARCH: SearchSetting = { base: `OU=Groups,${BASE}`, scope: 'SCOPE_SUBTREE', filter: '(objectClass=group)' };
const smith = { dn: `CN=Smith\\, John,OU=Users,${BASE}`, attributes: { samaccountname: ['jsmith'] } };

describe("Active Directory's group types on Active Directory's answers", () => {
  const entries = [
    // member values as AD stores them, in another case and with spaces after commas.
    group(`CN=Domain Admins,OU=Groups,${BASE}`, ['cn=smith\\, john, ou=users, dc=corp, dc=example']),
    group(`CN=Tier1,OU=Groups,${BASE}`, [`CN=Domain Admins,OU=Groups,${BASE}`]),
    group(`CN=Tier2,OU=Groups,${BASE}`, [`cn=tier1,ou=groups,dc=corp,dc=example`]),
    // A cycle: Loop-A and Loop-B contain each other, and Loop-B contains Tier2.
    group(`CN=Loop-A,OU=Groups,${BASE}`, [`CN=Loop-B,OU=Groups,${BASE}`]),
    group(`CN=Loop-B,OU=Groups,${BASE}`, [`CN=Loop-A,OU=Groups,${BASE}`, `CN=Tier2,OU=Groups,${BASE}`]),
    group(`CN=Others,OU=Groups,${BASE}`, [`CN=Jones,OU=Users,${BASE}`]),
    group(`CN=Outside,OU=Elsewhere,${BASE}`, [`CN=Smith\\2C John,OU=Users,${BASE}`]),
  ];

  it('ActiveDirectoryGroupType: direct groups only; the DN with an escaped comma is escaped again for the filter', async () => {
    const ad = new ActiveDirectoryAnswers(entries);
    const groups = await groupType('ActiveDirectoryGroupType', {}).userGroups(smith, SEARCH, ad);
    assert.deepEqual(groups.map((g) => g.dn), [`CN=Domain Admins,OU=Groups,${BASE}`]);
    // RFC 4515: the DN's backslash is itself escaped (\5c), so the comma stays part of the name.
    assert.equal(ad.filters[0], `(&(objectClass=group)(member=CN=Smith\\5c, John,OU=Users,${BASE}))`);
  });

  it('NestedActiveDirectoryGroupType: transitive membership across spellings, ending in a cycle', async () => {
    const ad = new ActiveDirectoryAnswers(entries);
    const groups = await groupType('NestedActiveDirectoryGroupType', {}).userGroups(smith, SEARCH, ad);
    assert.deepEqual(groups.map((g) => g.dn.split(',')[0]).sort(), ['CN=Domain Admins', 'CN=Loop-A', 'CN=Loop-B', 'CN=Tier1', 'CN=Tier2']);
    assert.ok(ad.filters.length <= 6, `the walk ended: ${ad.filters.length} searches`);
  });

  it('membership of a configured group: by the search, or asked of a group outside GROUP_SEARCH', async () => {
    const ad = new ActiveDirectoryAnswers(entries);
    const type = groupType('NestedActiveDirectoryGroupType', {});
    const found = new Map((await type.userGroups(smith, SEARCH, ad)).map((g) => [normalizeDn(g.dn), g]));
    const ctx = { user: smith, type, search: SEARCH, reader: ad };
    assert.equal((await membershipOf('cn=tier2, ou=groups, dc=corp, dc=example', found, ctx)).member, true);
    assert.equal((await membershipOf(`CN=Others,OU=Groups,${BASE}`, found, ctx)).member, false);
    const outside = await membershipOf(`CN=Outside,OU=Elsewhere,${BASE}`, found, ctx);
    assert.deepEqual(outside, { member: true, how: 'its member names the user (asked of the group)' });
  });

  it('a directory that nests without end cannot hold a login: the walk is bounded', async () => {
    const chain: DirectoryEntry[] = [group(`CN=G0,OU=Groups,${BASE}`, [smith.dn])];
    for (let i = 1; i < NESTED_MAX_ROUNDS * 2; i++) chain.push(group(`CN=G${i},OU=Groups,${BASE}`, [`CN=G${i - 1},OU=Groups,${BASE}`]));
    const ad = new ActiveDirectoryAnswers(chain);
    const groups = await groupType('NestedActiveDirectoryGroupType', {}).userGroups(smith, SEARCH, ad);
    assert.equal(ad.filters.length, NESTED_MAX_ROUNDS);
    assert.equal(groups.length, NESTED_MAX_ROUNDS);
  });

  it('MemberDNGroupType with member_attr, and the unique-member and posix types pick their own attribute', () => {
    assert.equal(groupType('MemberDNGroupType', { member_attr: 'memberOfGroup' }).memberAttr, 'memberOfGroup');
    assert.equal(groupType('ActiveDirectoryGroupType', { member_attr: 'ignored' }).memberAttr, 'member');
    assert.equal(groupType('NestedGroupOfUniqueNamesType', {}).memberAttr, 'uniqueMember');
    assert.equal(groupType('PosixGroupType', {}).memberAttr, 'memberUid');
  });
});
