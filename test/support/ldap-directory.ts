import { SlapdServer, ssha } from './slapd-server';

export const BASE = 'dc=example,dc=org';
export const PARTNERS = 'dc=partners,dc=org';
export const PEOPLE = `ou=people,${BASE}`;
export const GROUPS = `ou=groups,${BASE}`;
export const READER_DN = `cn=reader,${BASE}`;
export const READER_PASSWORD = 'Reader-bind-pw-9';

const group = (cn: string) => `cn=${cn},${GROUPS}`;
export const DN = {
  alice: `uid=alice,${PEOPLE}`,
  bob: `uid=bob,${PEOPLE}`,
  carol: `uid=carol,${PEOPLE}`,
  dave: `uid=dave,${PEOPLE}`,
  lara: `uid=lara,${PEOPLE}`,
  staff: group('staff'),
  admins: group('admins'),
  auditors: group('auditors'),
  teamA: group('team-a'),
  cycleA: group('cycle-a'),
  cycleB: group('cycle-b'),
  banned: group('banned'),
  uniqueAdmins: `cn=unique-admins,ou=unique,${BASE}`,
  developers: `cn=developers,ou=posix,${BASE}`,
  ops: `cn=ops,ou=posix,${BASE}`,
};

export const PASSWORDS: Record<string, string> = {
  alice: 'Alice-dir-pw-1',
  bob: 'Bob-dir-pw-1',
  carol: 'Carol-dir-pw-1',
  dave: 'Dave-dir-pw-1',
  lara: 'Lara-dir-pw-1',
  localuser: 'Local-in-dir-pw-1',
  'o+brien': 'Obrien-dir-pw-1',
  'svc-robot': 'Robot-dir-pw-1',
  erin: 'Erin-partner-pw-1',
};

function person(uid: string, first: string, last: string, extra: { uidNumber?: number; gidNumber?: number } = {}): string {
  const dnUid = uid.replace(/\+/g, '\\+');
  const posix = extra.uidNumber
    ? `objectClass: posixAccount\nuidNumber: ${extra.uidNumber}\ngidNumber: ${extra.gidNumber}\nhomeDirectory: /home/${uid}\n`
    : '';
  return (
    `dn: uid=${dnUid},${PEOPLE}\nobjectClass: inetOrgPerson\n${posix}uid: ${uid}\ncn: ${first} ${last}\ngivenName: ${first}\nsn: ${last}\n` +
    `mail: ${uid}@example.org\nuserPassword: ${ssha(PASSWORDS[uid])}\n`
  );
}

function groupOfNames(dn: string, members: string[]): string {
  return `dn: ${dn}\nobjectClass: groupOfNames\ncn: ${dn.split(',')[0].slice(3)}\n${members.map((m) => `member: ${m}`).join('\n')}\n`;
}

/**
 * The directory every LDAP test logs in to: people (some also posixAccount), groupOfNames with groups in
 * groups and a cycle, a groupOfUniqueNames, posixGroups by memberUid and by gidNumber, a service account
 * for searches; and a second naming context (dc=partners) that a second directory setting points at.
 */
export function directoryLdif(): string[] {
  const main = [
    `dn: ${BASE}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n`,
    `dn: ${READER_DN}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: reader\nuserPassword: ${ssha(READER_PASSWORD)}\n`,
    `dn: ${PEOPLE}\nobjectClass: organizationalUnit\nou: people\n`,
    `dn: ${GROUPS}\nobjectClass: organizationalUnit\nou: groups\n`,
    `dn: ou=unique,${BASE}\nobjectClass: organizationalUnit\nou: unique\n`,
    `dn: ou=posix,${BASE}\nobjectClass: organizationalUnit\nou: posix\n`,
    person('alice', 'Alice', 'Liddell', { uidNumber: 1001, gidNumber: 5001 }),
    person('bob', 'Bob', 'Builder', { uidNumber: 1002, gidNumber: 5000 }),
    person('carol', 'Carol', 'Danvers'),
    person('dave', 'Dave', 'Lister'),
    person('lara', 'Lara', 'Croft'),
    person('localuser', 'Local', 'Clash'),
    person('o+brien', 'Miles', "O'Brien"),
    person('svc-robot', 'Robot', 'Clash'),
    groupOfNames(DN.staff, [DN.alice, DN.bob, DN.carol, `uid=o\\+brien,${PEOPLE}`, `uid=localuser,${PEOPLE}`, `uid=svc-robot,${PEOPLE}`]),
    groupOfNames(DN.admins, [DN.alice, DN.lara]),
    groupOfNames(DN.teamA, [DN.bob]),
    groupOfNames(DN.auditors, [DN.teamA]),
    groupOfNames(DN.cycleA, [DN.cycleB]),
    groupOfNames(DN.cycleB, [DN.cycleA, DN.dave]),
    groupOfNames(DN.banned, [DN.carol]),
    `dn: ${DN.uniqueAdmins}\nobjectClass: groupOfUniqueNames\ncn: unique-admins\nuniqueMember: ${DN.bob}\n`,
    `dn: ${DN.developers}\nobjectClass: posixGroup\ncn: developers\ngidNumber: 5001\nmemberUid: bob\n`,
    `dn: ${DN.ops}\nobjectClass: posixGroup\ncn: ops\ngidNumber: 5002\nmemberUid: alice\n`,
  ];
  const partners = [
    `dn: ${PARTNERS}\nobjectClass: dcObject\nobjectClass: organization\ndc: partners\no: Partners\n`,
    `dn: ou=people,${PARTNERS}\nobjectClass: organizationalUnit\nou: people\n`,
    `dn: uid=erin,ou=people,${PARTNERS}\nobjectClass: inetOrgPerson\nuid: erin\ncn: Erin Partner\ngivenName: Erin\nsn: Partner\nmail: erin@partners.org\nuserPassword: ${ssha(PASSWORDS.erin)}\n`,
  ];
  return [main.join('\n'), partners.join('\n')];
}

export async function startDirectory(): Promise<SlapdServer> {
  const server = new SlapdServer({ suffixes: [BASE, PARTNERS], ldif: directoryLdif() });
  await server.init();
  await server.start();
  return server;
}

/** The default directory's settings for `server`: a search as the reader account, nested groupOfNames. */
export function defaultDirectory(server: SlapdServer, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    AUTH_LDAP_SERVER_URI: server.ldapUrl,
    AUTH_LDAP_BIND_DN: READER_DN,
    AUTH_LDAP_BIND_PASSWORD: READER_PASSWORD,
    AUTH_LDAP_USER_SEARCH: [PEOPLE, 'SCOPE_ONELEVEL', '(uid=%(user)s)'],
    AUTH_LDAP_GROUP_SEARCH: [GROUPS, 'SCOPE_SUBTREE', '(objectClass=groupOfNames)'],
    AUTH_LDAP_GROUP_TYPE: 'NestedGroupOfNamesType',
    AUTH_LDAP_REQUIRE_GROUP: null,
    AUTH_LDAP_DENY_GROUP: null,
    AUTH_LDAP_USER_FLAGS_BY_GROUP: { is_superuser: [DN.admins], is_system_auditor: DN.auditors },
    ...extra,
  };
}
