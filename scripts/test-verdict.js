#!/usr/bin/env node
'use strict';
/**
 * The verdict on one `node --test` run (issues 28 and 40), read from the events scripts/test-events.js wrote
 * and node's exit status. A run passes only when node exited 0, at least one test passed, and nothing failed:
 * no failed or cancelled test (a failed `before` hook, a timeout, a promise that never settled), no suite
 * whose hook failed (`after` in a `describe`: node counts no failure), no failing todo, no skip or todo
 * without a reason, and every file ended with its own summary (one that exited part-way, or that
 * registered no test, has none; node counts such a file as one passing test).
 *
 * usage: node scripts/test-verdict.js EVENTS EXIT_STATUS LABEL FILE…
 * prints `LABEL: <pass> passed, <failed> failed, …`, a `LABEL: FAILED: …` line per problem and a
 * `LABEL: not run: …` line per skipped test or suite and todo; the last line is `verdict <passed> <failed>`
 * for the caller. Exits 1 on a failing run.
 */
const { readFileSync } = require('node:fs');
const { basename, resolve } = require('node:path');

const CANCELLED = new Set(['cancelledByParent', 'testTimeoutFailure']);

/** The verdict on parsed events; exported for the runner's own test. */
function verdictOf(events, exitStatus, files) {
  const wanted = files.map((file) => resolve(file));
  const summarised = new Set(events.filter((e) => e.event === 'summary' && e.file).map((e) => e.file));
  // The test node makes up for a file whose process did not report its own tests (exited early, no test).
  const isFileItself = (e) => e.nesting === 0 && e.file && !summarised.has(e.file) && (e.name === e.file || basename(e.file) === basename(e.name));
  const where = (e) => `"${e.name}" (${e.file ? basename(e.file) : 'no file'})`;
  const results = events.filter((e) => e.event === 'pass' || e.event === 'fail');

  let pass = 0;
  let fail = 0;
  let cancelled = 0;
  let skipped = 0;
  let todo = 0;
  const problems = [];
  const notRun = [];
  const failedItself = new Set();
  for (const e of results) {
    if (e.event === 'pass') {
      if (e.skip !== undefined) {
        skipped += 1;
        if (e.skip === true) problems.push(`skip without a reason: ${e.name}`);
        else notRun.push(`${e.kind === 'suite' ? 'suite' : 'test'} ${where(e)} skipped: ${e.skip}`);
      } else if (e.todo !== undefined) {
        todo += 1;
        if (e.todo === true) problems.push(`todo without a reason: ${e.name}`);
        else notRun.push(`todo ${where(e)} not counted: ${e.todo}`);
      } else if (e.kind === 'test' && !isFileItself(e)) {
        pass += 1;
      }
      continue;
    }
    // A suite or test that failed only because a subtest did: that subtest is counted already.
    if (e.failureType === 'subtestsFailed') continue;
    if (e.todo !== undefined) {
      todo += 1;
      fail += 1;
      problems.push(`todo failed: ${where(e)}: ${e.error}`);
    } else if (e.failureType === 'hookFailed') {
      fail += 1;
      problems.push(`hook failed in ${e.kind === 'suite' ? 'suite' : 'test'} ${where(e)}: ${e.error}`);
    } else if (isFileItself(e)) {
      fail += 1;
      failedItself.add(e.file);
      problems.push(`file ${basename(e.file)} failed: ${e.error}`);
    } else if (CANCELLED.has(e.failureType)) {
      cancelled += 1;
    } else {
      fail += 1;
    }
  }
  for (const file of wanted) {
    if (summarised.has(file)) continue;
    const reported = results.filter((e) => e.file === file && !isFileItself(e)).length;
    if (!failedItself.has(file)) fail += 1;
    problems.push(
      reported > 0
        ? `${basename(file)} ended before its own summary (${reported} tests or suites reported): its process exited or was stopped part-way`
        : `${basename(file)} reported no test: it registered none, or its process exited before the first one ended`,
    );
  }
  if (exitStatus !== 0) problems.unshift(`node exited with status ${exitStatus}`);
  const leafFailures = results.filter((e) => e.event === 'fail' && e.failureType !== 'subtestsFailed' && e.todo === undefined && e.failureType !== 'hookFailed' && !isFileItself(e) && !CANCELLED.has(e.failureType));
  if (leafFailures.length > 0) problems.push(`${leafFailures.length} failed`);
  // The first few with their errors: a CI log cut short still says why.
  for (const e of leafFailures.slice(0, 5)) problems.push(`failed: ${where(e)}: ${e.error}`);
  if (cancelled > 0) problems.push(`${cancelled} cancelled (a failed hook, a timeout or a promise that never settled)`);
  if (pass === 0) problems.push('no test passed');
  return { pass, fail, cancelled, skipped, todo, problems, notRun, ok: problems.length === 0 };
}

/** One JSON object per line; a line cut short (a run stopped while writing) is not an event. */
function readEvents(file) {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    try {
      return line ? [JSON.parse(line)] : [];
    } catch {
      return [];
    }
  });
}

module.exports = { verdictOf, readEvents };

if (require.main === module) {
  const [eventsFile, status, label = 'tests', ...files] = process.argv.slice(2);
  const verdict = verdictOf(readEvents(eventsFile), Number(status), files);
  // Everything that is not a pass counts against the run: the suite's total "failed" includes it.
  const failed = verdict.ok ? 0 : Math.max(1, verdict.fail + verdict.cancelled);
  console.log(`${label}: ${verdict.pass} passed, ${verdict.fail} failed, ${verdict.cancelled} cancelled, ${verdict.skipped} skipped, ${verdict.todo} todo`);
  for (const problem of verdict.problems) console.log(`${label}: FAILED: ${problem}`);
  for (const line of verdict.notRun) console.log(`${label}: not run: ${line}`);
  console.log(`verdict ${verdict.pass} ${failed}`);
  process.exit(verdict.ok ? 0 : 1);
}
