import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/** AWX's launch prompts and survey flag on job templates (SPEC §19). */
const COLUMNS = [
  'ask_variables_on_launch', 'ask_inventory_on_launch', 'ask_credential_on_launch', 'ask_job_type_on_launch', 'ask_tags_on_launch',
  'ask_skip_tags_on_launch', 'ask_diff_mode_on_launch', 'ask_verbosity_on_launch', 'ask_scm_branch_on_launch', 'survey_enabled',
];

export class LaunchPrompts1764200000000 implements MigrationInterface {
  name = 'LaunchPrompts1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('main_jobtemplate', COLUMNS.map((name) => new TableColumn({ name, type: 'boolean', default: false })));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumns('main_jobtemplate', COLUMNS);
  }
}
