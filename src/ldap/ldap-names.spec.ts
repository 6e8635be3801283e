import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FilterParser } from 'ldapts';
import { activeDirectoryReason } from './directory-login';
import { escapeDnValue, escapeFilterValue, fillDnTemplate, fillFilter, isDn, isUnder, normalizeDn, parseDn } from './ldap-names';

describe('RFC 4515: a username inside a search filter', () => {
  it("escapes the RFC's own examples", () => {
    // RFC 4515 §4: (o=Parens R Us \28for all your parenthetical needs\29), (cn=*\2A*), (filename=C:\5cMyFile)
    assert.equal(escapeFilterValue('Parens R Us (for all your parenthetical needs)'), 'Parens R Us \\28for all your parenthetical needs\\29');
    assert.equal(escapeFilterValue('*'), '\\2a');
    assert.equal(escapeFilterValue('C:\\MyFile'), 'C:\\5cMyFile');
    assert.equal(escapeFilterValue('\0'), '\\00');
    assert.equal(escapeFilterValue('Lučić'), 'Lučić');
  });

  it('an injection attempt stays one equality value', () => {
    for (const name of ['*', 'alice)(uid=*', '*)(|(objectClass=*', 'a\\29', 'x)(&']) {
      const filter = FilterParser.parseString(fillFilter('(&(objectClass=person)(uid=%(user)s))', name));
      const and = filter as unknown as { filters: { attribute: string; value: string; type: number }[] };
      assert.equal(and.filters.length, 2, name);
      assert.equal(and.filters[1].attribute, 'uid');
      assert.equal(and.filters[1].value, name, `the value is the name as typed: ${name}`);
    }
  });

  it('fills every %(user)s of a template', () => {
    assert.equal(fillFilter('(|(uid=%(user)s)(mail=%(user)s))', 'a*'), '(|(uid=a\\2a)(mail=a\\2a))');
  });
});

describe('RFC 4514: a username inside a DN template', () => {
  it("escapes the RFC's special characters, leading # and space, trailing space", () => {
    assert.equal(escapeDnValue('o+brien'), 'o\\+brien');
    assert.equal(escapeDnValue('Smith, John'), 'Smith\\, John');
    assert.equal(escapeDnValue('a"b<c>d;e=f\\g'), 'a\\"b\\<c\\>d\\;e\\=f\\\\g');
    assert.equal(escapeDnValue('#hash'), '\\#hash');
    assert.equal(escapeDnValue(' lead'), '\\ lead');
    assert.equal(escapeDnValue('trail '), 'trail\\ ');
    assert.equal(escapeDnValue('nul\0'), 'nul\\00');
  });

  it('a filled template parses back to the name as typed, in one RDN', () => {
    for (const name of ['o+brien', 'a,b', 'x=y', 'cn=admin,dc=evil', ' spaced ', '#1']) {
      const dn = fillDnTemplate('uid=%(user)s,ou=people,dc=example,dc=org', name);
      const rdns = parseDn(dn);
      assert.equal(rdns.length, 4, dn);
      assert.deepEqual(rdns[0], [{ type: 'uid', value: name }], dn);
    }
  });
});

describe('DN parsing and comparison', () => {
  it('accepts DNs as OpenLDAP and Active Directory write them; refuses malformed ones', () => {
    for (const dn of ['cn=admin,dc=example,dc=org', 'CN=Smith\\, John,OU=Users,DC=corp,DC=example', 'cn=a+sn=b,dc=x', 'uid=o\\2Bbrien,dc=x', 'cn=x, ou=y', '1.3.6.1.4.1.1466.0=#04024869,dc=x']) {
      assert.ok(isDn(dn), dn);
    }
    for (const dn of ['', 'not a dn', 'cn=', 'cn=a,,dc=x', 'cn=a,', '=a', 'cn=a"b', 'cn=a\\zz', 'cn=#abc']) assert.ok(!isDn(dn), dn);
  });

  it('compares DNs without case, spaces after separators or escaping style', () => {
    assert.equal(normalizeDn('CN=Admins, OU=Groups,DC=Corp'), normalizeDn('cn=admins,ou=groups,dc=corp'));
    assert.equal(normalizeDn('uid=o\\2Bbrien,dc=x'), normalizeDn('uid=o\\+brien,dc=x'));
    assert.equal(normalizeDn('cn=a+sn=b,dc=x'), normalizeDn('sn=B+cn=A,dc=x'));
    assert.notEqual(normalizeDn('cn=a\\,b,dc=x'), normalizeDn('cn=a,cn=b,dc=x'));
    assert.ok(isUnder('CN=Admins,OU=Groups,DC=corp', 'ou=groups,dc=corp'));
    assert.ok(!isUnder('cn=admins,ou=groupsx,dc=corp', 'ou=groups,dc=corp'));
  });
});

describe("Active Directory's reasons for a refused bind (answers slapd never gives)", () => {
  it('reads the sub-code of the diagnostic message', () => {
    const message = (code: string) => `80090308: LdapErr: DSID-0C09042A, comment: AcceptSecurityContext error, data ${code}, v3839`;
    assert.equal(activeDirectoryReason(message('52e')), 'wrong password (Active Directory 52e)');
    assert.equal(activeDirectoryReason(message('775')), 'account locked out (Active Directory 775)');
    assert.equal(activeDirectoryReason(message('533')), 'account disabled (Active Directory 533)');
    assert.equal(activeDirectoryReason(message('532')), 'password expired (Active Directory 532)');
    assert.equal(activeDirectoryReason(message('773')), 'password must be reset (Active Directory 773)');
    assert.equal(activeDirectoryReason('Invalid credentials'), undefined);
  });
});
