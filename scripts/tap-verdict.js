#!/usr/bin/env node
'use strict';
/**
 * The verdict on one `node --test` run, read from its TAP output and its exit status (issue 28).
 * A run passes only when node exited 0, at least one test passed, none failed, none was cancelled
 * (a failed `before` hook, a timeout, a promise that never settled), and every skip or todo gave a
 * reason. Counting only "# pass" and "# fail" read all of those as green.
 *
 * usage: node scripts/tap-verdict.js LOG EXIT_STATUS
 * prints one line `LABEL: <pass> passed, <failed> failed, …` and exits 1 on a failing run.
 * The counts are also written as JSON to stdout's last line prefixed `verdict ` for the caller.
 */
const { readFileSync } = require('node:fs');

/** Reads the summary and the lines that matter from TAP text; exported for the runner's own test. */
function verdictOf(tap, exitStatus) {
  const summary = (name) => {
    const all = [...tap.matchAll(new RegExp(`^# ${name} (\\d+)$`, 'gm'))];
    return all.length ? Number(all[all.length - 1][1]) : 0;
  };
  const pass = summary('pass');
  const fail = summary('fail');
  const cancelled = summary('cancelled');
  const skipped = summary('skipped');
  const todo = summary('todo');
  // A skip or todo directive with nothing after it: `ok 3 - name # SKIP` (node writes the reason after it).
  const unexplained = [...tap.matchAll(/^\s*(?:not )?ok \d+ - (.*?) # (SKIP|TODO)\s*$/gm)].map((m) => `${m[2].toLowerCase()} without a reason: ${m[1]}`);
  const problems = [];
  if (exitStatus !== 0) problems.push(`node exited with status ${exitStatus}`);
  if (fail > 0) problems.push(`${fail} failed`);
  if (cancelled > 0) problems.push(`${cancelled} cancelled (a failed hook, a timeout or a promise that never settled)`);
  if (pass === 0) problems.push('no test passed');
  problems.push(...unexplained);
  return { pass, fail, cancelled, skipped, todo, problems, ok: problems.length === 0 };
}

module.exports = { verdictOf };

if (require.main === module) {
  const [file, status, label = 'tests'] = process.argv.slice(2);
  const verdict = verdictOf(readFileSync(file, 'utf8'), Number(status));
  // Everything that is not a pass counts against the run: the suite's total "failed" includes it.
  const failed = verdict.ok ? verdict.fail : Math.max(1, verdict.fail + verdict.cancelled);
  console.log(`${label}: ${verdict.pass} passed, ${verdict.fail} failed, ${verdict.cancelled} cancelled, ${verdict.skipped} skipped, ${verdict.todo} todo`);
  for (const problem of verdict.problems) console.log(`${label}: FAILED: ${problem}`);
  console.log(`verdict ${verdict.pass} ${failed}`);
  process.exit(verdict.ok ? 0 : 1);
}
