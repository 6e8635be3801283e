import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { TEST_DB } from './support/test-db';

/**
 * The runner's own test (issue 28): `run_suite` of scripts/run-suite.sh, the very function `npm test`
 * calls, run on fixture files that fail in the ways Node 20 reports as "cancelled" or not at all. Each must
 * fail the run; a file that passes (with an explained skip) must not.
 */
const ROOT = resolve(__dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'runner');
const work = mkdtempSync(join(tmpdir(), 'svc-runner-'));

function runSuite(...fixtures: string[]): { status: number; totals: string; output: string } {
  const files = fixtures.map((f) => join(FIXTURES, `${f}.fixture.js`)).join(' ');
  const script = `source ${join(ROOT, 'scripts', 'run-suite.sh')}; run_suite fixture ${files}; echo "totals $total_pass $total_fail $status"; exit $status`;
  // NODE_TEST_CONTEXT (set for this file by the outer `node --test`) would make the inner run report to it.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_TEST_CONTEXT'));
  const run = spawnSync('bash', ['-c', script], { cwd: work, env, encoding: 'utf8', timeout: 60_000 });
  const output = `${run.stdout}${run.stderr}`;
  const totals = /^totals (.*)$/m.exec(output)?.[1] ?? '';
  return { status: run.status ?? -1, totals, output };
}

describe('the test runner', { skip: TEST_DB !== 'sqlite' ? 'database-independent: runs in the SQLite half' : false }, () => {
  after(() => rmSync(work, { recursive: true, force: true }));

  it('passes a run whose tests pass, an explained skip included', () => {
    const run = runSuite('passing');
    assert.equal(run.status, 0, run.output);
    assert.equal(run.totals, '1 0 0', run.output);
  });

  it('fails a run whose before hook fails (node reports its tests as cancelled)', () => {
    const run = runSuite('passing', 'failing-before-hook');
    assert.equal(run.status, 1, run.output);
    assert.match(run.output, /fixture: FAILED: 2 cancelled/);
    assert.equal(run.totals, '1 2 1', run.output);
  });

  it('fails a run with a test that timed out', () => {
    const run = runSuite('timeout');
    assert.equal(run.status, 1, run.output);
    assert.match(run.output, /FAILED: 1 cancelled/);
  });

  it('fails a run with a promise that never settles', () => {
    const run = runSuite('never-settles');
    assert.equal(run.status, 1, run.output);
    assert.match(run.output, /FAILED: 1 cancelled/);
  });

  it('fails a run with a skip that gives no reason', () => {
    const run = runSuite('unexplained-skip');
    assert.equal(run.status, 1, run.output);
    assert.match(run.output, /FAILED: skip without a reason: is skipped for no stated reason/);
  });

  it('fails a run whose process exits non-zero', () => {
    const run = runSuite('exits-nonzero');
    assert.equal(run.status, 1, run.output);
    assert.match(run.output, /FAILED: node exited with status 1/);
  });
});
