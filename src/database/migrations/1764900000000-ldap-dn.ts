import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/** LDAP users keep the DN of their directory entry, shown as `ldap_dn` (SPEC §14, issue 30). */
export class LdapDn1764900000000 implements MigrationInterface {
  name = 'LdapDn1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('auth_user', new TableColumn({ name: 'ldap_dn', type: 'varchar', length: '1024', isNullable: true }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('auth_user', 'ldap_dn');
  }
}
