import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { TEST_DB } from './support/test-db';

/**
 * The runner's own test (issues 28 and 40): `run_suite` of scripts/run-suite.sh and `plan_runs` of
 * scripts/test-plan.sh, the very functions `npm test` calls, run on fixture files that fail in each way a
 * run used to end green: a cancelled test, a failed hook, a failing todo, a process that exits part-way, a
 * file with no test, a hang. Each must fail the run; a file that passes (with an explained skip) must not,
 * and every test, suite, half and file that did not run is named with its reason.
 */
const ROOT = resolve(__dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'runner');
const work = mkdtempSync(join(tmpdir(), 'svc-runner-'));
// At the file's end, not the suite's: a skipped suite runs no hook, and the folder is made either way.
after(() => rmSync(work, { recursive: true, force: true }));

interface Run {
  status: number;
  totals: string;
  notRun: string[];
  /** The failed_why lines test-all.sh prints again above its total. */
  failedWhy: string[];
  output: string;
}

/** Runs bash `script` in `cwd` with run-suite.sh and test-plan.sh sourced; reads the totals it echoes. */
function bash(script: string, cwd: string, extraEnv: Record<string, string> = {}): Run {
  const scripts = join(ROOT, 'scripts');
  const full = `source ${scripts}/run-suite.sh; source ${scripts}/test-plan.sh; ${script}
    echo "totals $total_pass $total_fail $status"; for line in "\${not_run[@]}"; do echo "not_run: $line"; done;
    for line in "\${failed_why[@]}"; do echo "failed_why: $line"; done; exit $status`;
  // NODE_TEST_CONTEXT (set for this file by the outer `node --test`) would make the inner run report to it;
  // the TEST_* settings of the outer run are not this run's.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_TEST_CONTEXT' && !name.startsWith('TEST_')));
  const run = spawnSync('bash', ['-c', full], { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', timeout: 60_000 });
  const output = `${run.stdout}${run.stderr}`;
  const totals = /^totals (.*)$/m.exec(output)?.[1] ?? '';
  const notRun = [...output.matchAll(/^not_run: (.*)$/gm)].map((m) => m[1]);
  const failedWhy = [...output.matchAll(/^failed_why: (.*)$/gm)].map((m) => m[1]);
  return { status: run.status ?? -1, totals, notRun, failedWhy, output };
}

function runSuite(fixtures: string[], env: Record<string, string> = {}): Run {
  const files = fixtures.map((f) => join(FIXTURES, `${f}.fixture.js`)).join(' ');
  return bash(`run_suite fixture ${files}`, work, env);
}

/** A tree laid out as npm test sees it after the build: FILES relative to a fresh directory. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(work, 'tree-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const PROJECT = {
  'dist/src/unit.spec.js': '',
  'dist/test/alpha.e2e-spec.js': '',
  'dist/test/cluster.e2e-spec.js': '',
  'dist/test/pages.browser-spec.js': '',
  'test/alpha.e2e-spec.ts': '',
  'test/cluster.e2e-spec.ts': '// @galera: runs on the cluster too\n',
};

describe('the test runner', { skip: TEST_DB !== 'sqlite' ? 'database-independent: runs in the SQLite half' : false }, () => {
  describe('run_suite', () => {
    it('passes a run whose tests pass, and names the explained skip', () => {
      const run = runSuite(['passing']);
      assert.equal(run.status, 0, run.output);
      assert.equal(run.totals, '1 0 0', run.output);
      assert.deepEqual(run.notRun, ['fixture: not run: test "is skipped with a reason" (passing.fixture.js) skipped: needs something this run lacks']);
      assert.deepEqual(run.failedWhy, []);
    });

    it('passes a run with a skipped describe, and names the suite node does not count in "# skipped"', () => {
      const run = runSuite(['skipped-describe']);
      assert.equal(run.status, 0, run.output);
      assert.equal(run.totals, '1 0 0', run.output);
      assert.match(run.output, /fixture: 1 passed, 0 failed, 0 cancelled, 1 skipped, 0 todo/);
      assert.deepEqual(run.notRun, ['fixture: not run: suite "a suite for another database" (skipped-describe.fixture.js) skipped: runs in the MySQL half']);
    });

    it('fails a run whose before hook fails (node reports its tests as cancelled)', () => {
      const run = runSuite(['passing', 'failing-before-hook']);
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /fixture: FAILED: hook failed in suite "a suite whose set-up fails" \(failing-before-hook\.fixture\.js\): deliberately failing before hook/);
      assert.match(run.output, /fixture: FAILED: 2 cancelled/);
      assert.equal(run.totals, '1 3 1', run.output);
      // Kept for the end of the log, where a CI excerpt cut in the middle still shows it.
      assert.deepEqual(run.failedWhy, [
        'fixture: FAILED: node exited with status 1',
        'fixture: FAILED: hook failed in suite "a suite whose set-up fails" (failing-before-hook.fixture.js): deliberately failing before hook',
        'fixture: FAILED: 2 cancelled (a failed hook, a timeout or a promise that never settled)',
      ]);
    });

    it('fails a run whose tests fail, naming the first five with their errors', () => {
      const run = runSuite(['passing', 'failing-assertions']);
      assert.equal(run.status, 1, run.output);
      assert.equal(run.totals, '1 7 1', run.output);
      assert.deepEqual(run.failedWhy, [
        'fixture: FAILED: node exited with status 1',
        'fixture: FAILED: 7 failed',
        ...[1, 2, 3, 4, 5].map((i) => `fixture: FAILED: failed: "assertion ${i} fails" (failing-assertions.fixture.js): deliberately failing assertion ${i} (expected 0, actual ${i})`),
      ]);
    });

    it('names what a failed assertion expected and what it got, on the summary line (issue 56)', () => {
      const run = runSuite(['passing', 'failing-deep-equal']);
      assert.equal(run.status, 1, run.output);
      assert.ok(
        run.failedWhy.includes(
          "fixture: FAILED: failed: \"objects differ\" (failing-deep-equal.fixture.js): Expected values to be strictly deep-equal: (expected { status: 403, detail: 'Filtering on x is not allowed.' }, actual { status: 400, detail: 'no' })",
        ),
        run.failedWhy.join('\n'),
      );
    });

    it('fails a run whose after hook in a describe fails (node: "# fail 0", exit 0)', () => {
      const run = runSuite(['passing', 'failing-after-hook']);
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /^# fail 0$/m);
      assert.match(run.output, /fixture: FAILED: hook failed in suite "a suite whose teardown fails" \(failing-after-hook\.fixture\.js\): deliberately failing after hook/);
      assert.equal(run.totals, '2 1 1', run.output);
    });

    it('fails a run whose afterEach hook in a describe fails', () => {
      const run = runSuite(['passing', 'failing-after-each-hook']);
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /fixture: FAILED: hook failed in test "passes" \(failing-after-each-hook\.fixture\.js\): deliberately failing afterEach hook/);
    });

    it('fails a run whose teardown close() throws', () => {
      const run = runSuite(['passing', 'throwing-close']);
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /fixture: FAILED: hook failed in suite "a suite whose close\(\) fails" \(throwing-close\.fixture\.js\): Server is not running/);
    });

    it('fails a run with a failing todo that gives its reason', () => {
      const run = runSuite(['passing', 'failing-todo']);
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /fixture: FAILED: todo failed: "fails although marked todo" \(failing-todo\.fixture\.js\): deliberately failing todo/);
    });

    it('fails a run with a file that calls process.exit(0) part-way', () => {
      const run = runSuite(['passing', 'exits-part-way']);
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /fixture: FAILED: exits-part-way\.fixture\.js reported no test: it registered none, or its process exited/);
    });

    it('fails a run with a file that registers no test (node counts it as one pass)', () => {
      const run = runSuite(['passing', 'no-test']);
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /fixture: FAILED: no-test\.fixture\.js reported no test/);
      assert.equal(run.totals, '1 1 1', run.output);
    });

    it('fails a file whose test hangs on an open handle once the file bound passes, and the run goes on', () => {
      const run = runSuite(['hangs-open-handle', 'passing'], { TEST_FILE_TIMEOUT_SECONDS: '3' });
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /=== fixture \(each file within 3 s\)/);
      assert.match(run.output, /fixture: FAILED: file hangs-open-handle\.fixture\.js failed: test timed out after 3000ms/);
      assert.match(run.output, /fixture: FAILED: hangs-open-handle\.fixture\.js ended before its own summary/);
      assert.match(run.totals, /^2 /, run.output);
    });

    it('fails a run with a test that timed out', () => {
      const run = runSuite(['timeout']);
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /FAILED: 1 cancelled/);
    });

    it('fails a run with a promise that never settles', () => {
      const run = runSuite(['never-settles']);
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /FAILED: 1 cancelled/);
    });

    it('fails a run with a skip that gives no reason', () => {
      const run = runSuite(['unexplained-skip']);
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /FAILED: skip without a reason: is skipped for no stated reason/);
    });

    it('fails a run whose process exits non-zero', () => {
      const run = runSuite(['exits-nonzero']);
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /FAILED: node exited with status 1/);
    });
  });

  describe('plan_runs', () => {
    it('plans every file on both databases and the marked file on Galera, leaving nothing out', () => {
      const run = bash('plan_runs; echo "plan ${databases[*]} | ${e2e[*]} | ${cluster_tests[*]} | $galera_wanted"', tree(PROJECT));
      assert.equal(run.status, 0, run.output);
      assert.match(run.output, /^plan sqlite mysql \| dist\/test\/alpha\.e2e-spec\.js dist\/test\/cluster\.e2e-spec\.js \| dist\/test\/cluster\.e2e-spec\.js \| 1$/m);
      assert.deepEqual(run.notRun, []);
    });

    it('names the MySQL half and the Galera pass under TEST_DATABASES=sqlite', () => {
      const run = bash('plan_runs', tree(PROJECT), { TEST_DATABASES: 'sqlite' });
      assert.equal(run.status, 0, run.output);
      assert.deepEqual(run.notRun, [
        'the mysql half (TEST_DATABASES=sqlite): alpha.e2e-spec cluster.e2e-spec pages.browser-spec ',
        'the Galera pass (TEST_DATABASES has no mysql): cluster.e2e-spec ',
      ]);
    });

    it('names the Galera pass under TEST_GALERA=off', () => {
      const run = bash('plan_runs', tree(PROJECT), { TEST_GALERA: 'off' });
      assert.equal(run.status, 0, run.output);
      assert.deepEqual(run.notRun, ['the Galera pass (TEST_GALERA=off): cluster.e2e-spec ']);
    });

    it('names the Galera pass under TEST_DATABASES=sqlite even when TEST_FILTER leaves it no file', () => {
      const run = bash('plan_runs', tree(PROJECT), { TEST_DATABASES: 'sqlite', TEST_FILTER: 'alpha' });
      assert.equal(run.status, 0, run.output);
      assert.deepEqual(run.notRun, [
        '2 files TEST_FILTER=alpha does not match: cluster.e2e-spec pages.browser-spec ',
        'the mysql half (TEST_DATABASES=sqlite): alpha.e2e-spec ',
        'the Galera pass (TEST_DATABASES has no mysql)',
      ]);
    });

    it('names the files a TEST_FILTER leaves out', () => {
      const run = bash('plan_runs; echo "plan ${e2e[*]} | ${browser[*]}"', tree(PROJECT), { TEST_FILTER: 'alpha' });
      assert.equal(run.status, 0, run.output);
      assert.match(run.output, /^plan dist\/test\/alpha\.e2e-spec\.js \| $/m);
      assert.deepEqual(run.notRun, [
        '2 files TEST_FILTER=alpha does not match: cluster.e2e-spec pages.browser-spec ',
        'the Galera pass: no file marked // @galera matches TEST_FILTER=alpha',
      ]);
    });

    it('fails a run whose TEST_FILTER matches no file', () => {
      const run = bash('plan_runs', tree(PROJECT), { TEST_FILTER: 'no-such-file' });
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /TEST_FILTER=no-such-file matches no e2e or browser file: nothing ran/);
      assert.equal(run.totals, '0 1 1', run.output);
    });

    it('fails a run whose Galera file was renamed away from its compiled name', () => {
      const project = tree(Object.fromEntries(Object.entries(PROJECT).filter(([path]) => path !== 'dist/test/cluster.e2e-spec.js')));
      const run = bash('plan_runs', project);
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /galera: test\/cluster\.e2e-spec\.ts is marked but dist\/test\/cluster\.e2e-spec\.js does not exist/);
    });

    it('fails a run with no file marked for Galera while Galera is on, not when it is off', () => {
      const project = tree({ ...PROJECT, 'test/cluster.e2e-spec.ts': '// runs on one node only\n' });
      const on = bash('plan_runs', project);
      assert.equal(on.status, 1, on.output);
      assert.match(on.output, /galera: no file in test is marked '\/\/ @galera'/);
      const off = bash('plan_runs', project, { TEST_GALERA: 'off' });
      assert.equal(off.status, 0, off.output);
    });
  });
});
