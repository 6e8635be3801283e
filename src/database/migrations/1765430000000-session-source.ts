import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * SPEC §22: every session says which source and which login method made it (`local`, `ldap:default`, `oidc:corp`…;
 * `form`, `second_step`, `sso`), and `/api/v2/sessions/` lists the live sessions of every user newest first: an
 * index in that order, with the live test's columns, so the first page reads the index's head.
 */
export class SessionSource1765430000000 implements MigrationInterface {
  name = 'SessionSource1765430000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('user_session', [
      new TableColumn({ name: 'source', type: 'varchar', length: '64', default: "''" }),
      new TableColumn({ name: 'method', type: 'varchar', length: '16', default: "''" }),
    ]);
    await q.createIndex('user_session', new TableIndex({ name: 'IDX_user_session_all_live', columnNames: ['ended_at', 'created', 'id', 'expires'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('user_session', 'IDX_user_session_all_live');
    await q.dropColumn('user_session', 'method');
    await q.dropColumn('user_session', 'source');
  }
}
