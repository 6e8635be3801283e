import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, TEST_DB, TestDatabase } from './support/test-db';
import { spawnService, ServiceProcess } from './support/service-process';
import { assertAnswer, parseWalkthrough, WalkthroughStep } from './support/walkthrough';

const DOC = join(__dirname, '..', '..', 'docs', 'walkthrough.md');
/** Quotes, a space and a `$` in the password prove the walkthrough's quoting. */
const ADMIN_PASSWORD = 'Walk through $1 "it"!';

/**
 * Runs one `sh` block of the walkthrough with bash, exactly as written, in the walkthrough's folder.
 * `curl` is wrapped only to record the headers of every answer (`-D`, placed first so the command's
 * own options win). Variables a block sets are kept for the next ones through a state file.
 */
function runStep(step: WalkthroughStep, env: Record<string, string>, work: string) {
  const headers = join(work, '.headers');
  writeFileSync(headers, '');
  const script = [
    'set -a',
    `source ${JSON.stringify(join(work, '.state'))}`,
    `cd ${JSON.stringify(work)}`,
    'curl() {',
    '  local dump rc',
    '  dump=$(mktemp)',
    '  command curl --max-time 20 -D "$dump" "$@"; rc=$?',
    `  cat "$dump" >> ${JSON.stringify(headers)}; rm -f "$dump"; return $rc`,
    '}',
    'set -eo pipefail',
    step.command,
    'set +e',
    `export -p | grep -v '^declare -[a-z]*r' > ${JSON.stringify(join(work, '.state'))}`,
  ].join('\n');
  const result = spawnSync('bash', ['-c', script], { env, encoding: 'utf8', timeout: 60000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, headers: readFileSync(headers, 'utf8') };
}

describe(`the walkthrough (docs/walkthrough.md) with curl against a started service on ${TEST_DB}`, () => {
  const steps = parseWalkthrough(readFileSync(DOC, 'utf8'));
  let db: TestDatabase;
  let node: ServiceProcess;
  let work: string;
  let env: Record<string, string>;

  before(async () => {
    const curl = spawnSync('curl', ['--version'], { encoding: 'utf8' });
    assert.equal(curl.status, 0, 'curl must be installed to run the walkthrough');
    db = await createTestDatabase();
    node = await spawnService({ DATABASE_URL: db.url, DATA_DIR: db.dataDir, ADMIN_PASSWORD, SECRET_KEY: 'walkthrough-secret-key-0123456789abcdefghij' });
    work = mkdtempSync(join(tmpdir(), 'walkthrough-'));
    writeFileSync(join(work, '.state'), '');
    env = {
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: work, // no ~/.curlrc of the machine running the tests
      BASE: node.url,
      ADMIN_PASSWORD,
    };
  });
  after(async () => {
    await node?.stop();
    await db?.drop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('has the steps of the seed', () => {
    const all = steps.map((s) => s.command).join('\n');
    for (const needle of ['/api/login/', 'X-CSRFToken', '/api/v2/tokens/', 'Authorization: Bearer', '/api/v2/users/', '/api/v2/hosts/', '/launch/', '"limit"', '/api/v2/credentials" -L']) {
      assert.ok(all.includes(needle), `the walkthrough shows ${needle}`);
    }
    assert.ok(steps.every((s) => !/\bcurl\b/.test(s.command) || s.expected), 'every block that calls curl shows its answer');
  });

  for (const [index, step] of steps.entries()) {
    const line = step.command.split('\n').find((l) => /\bcurl\b/.test(l)) ?? step.command.split('\n')[0];
    const title = `step ${index + 1} (§${step.section.split(' ')[0].replace(/\.$/, '')}): ${line.replace(/\s*\\$/, '')}`;
    it(title.slice(0, 160), () => {
      const result = runStep(step, env, work);
      assert.equal(result.status, 0, `the commands failed:\n${result.stderr}\n${result.stdout}`);
      if (step.expected) assertAnswer(step.expected, result.headers, result.stdout);
    });
  }
});
