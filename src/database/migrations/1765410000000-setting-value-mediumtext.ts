import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SPEC §22's `CUSTOM_LOGO` (up to 524,288 characters) and `CUSTOM_LOGIN_INFO` (65,536) are stored as JSON in
 * `conf_setting.value`, beyond MySQL's 64 KiB TEXT: MEDIUMTEXT there (as columns.ts largeTextColumn), as
 * before on SQLite, whose TEXT has no such limit.
 */
export class SettingValueMediumtext1765410000000 implements MigrationInterface {
  name = 'SettingValueMediumtext1765410000000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'mysql') await q.query('ALTER TABLE conf_setting MODIFY value MEDIUMTEXT NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'mysql') await q.query('ALTER TABLE conf_setting MODIFY value TEXT NOT NULL');
  }
}
