#!/usr/bin/env bash
# The whole test suite: unit tests, then every e2e test and the browser tests (Debian's Chromium through
# playwright-core) on SQLite and on MariaDB/MySQL.
# TEST_DATABASES="sqlite mysql" (default) picks the databases; TEST_MYSQL_URL (default
# mysql://root@127.0.0.1:3306) is the server on which each test file creates its own database.
set -uo pipefail
cd "$(dirname "$0")/.."

# What the suite needs beyond node_modules, checked (or, with TEST_INSTALL=1, installed) before anything runs.
bash scripts/test-prerequisites.sh || exit 1

# A clean build: a spec deleted from src/ or test/ must not keep running from an old dist/.
rm -rf dist
npm run build:test --silent || { echo "build failed"; exit 1; }
node scripts/build-if-stale.js --mark
# The promise rules tsc cannot check (eslint.config.mjs, typescript-eslint with type information): a
# floating or misused promise fails the run here, before any test.
npm run lint --silent || { echo "lint failed: fix what eslint names above (npm run lint)"; exit 1; }

concurrency="${TEST_CONCURRENCY:-2}"
mkdir -p test-output
# run_suite (scripts/run-suite.sh): node's exit status (${PIPESTATUS[0]} of the `node --test | tee` pipe) and the
# verdict of scripts/test-verdict.js on its events, where a cancelled test or a failed before/after hook is a
# failure; test/test-runner.e2e-spec.ts proves a run with either fails.
source scripts/run-suite.sh

# plan_runs (scripts/test-plan.sh): the files of each pass, and a not_run line for each one left out.
source scripts/test-plan.sh
plan_runs

[ ${#unit[@]} -gt 0 ] && run_suite unit "${unit[@]}"
for db in "${databases[@]}"; do
  [ ${#e2e[@]} -gt 0 ] && TEST_DB="$db" run_suite "e2e-${db}" "${e2e[@]}"
  # One file at a time: the "within 10 s" waits of the browser tests should not race other suites for the CPU.
  [ ${#browser[@]} -gt 0 ] && TEST_DB="$db" concurrency=1 run_suite "browser-${db}" "${browser[@]}"
done

# The Galera pass (issue 14): a 3-member MariaDB Galera cluster on loopback, started once, and the tests
# that run several service nodes, each node attached to a different member: the files marked `// @galera`
# (scripts/galera-files.sh). TEST_GALERA=off skips it.
if [ "$galera_wanted" = 1 ] && [ ${#cluster_tests[@]} -gt 0 ]; then
  galera_dir=$(mktemp -d /tmp/svc-galera-XXXXXX)
  chmod 755 "$galera_dir"
  mapfile -t galera_ports < <(node -e '
    const net = require("node:net");
    const free = (p) => new Promise((r) => { const s = net.createServer().once("error", () => r(false)).listen(p, "127.0.0.1", () => s.close(() => r(true))); });
    (async () => { for (;;) { const base = 20000 + Math.floor(Math.random() * 9000); const ps = [base, base + 1, base + 2];
      const all = ps.flatMap((p) => [p, p + 100, p + 200, p + 300]);
      if ((await Promise.all(all.map(free))).every(Boolean)) { console.log(ps.join("\n")); return; } } })();')
  galera_started=$(date +%s)
  if bash scripts/galera-cluster.sh start "$galera_dir" "${galera_ports[@]}"; then
    echo "galera cluster started in $(( $(date +%s) - galera_started ))s"
    # One file at a time: a member whose applier stalls makes every causal read on it wait (up to
    # repl.causal_read_timeout, 30 s), so one file's deliberate conflicts could fail another file's node start
    # (docs/decisions.md, "The Galera pass, one file at a time").
    galera_fail_before=$total_fail
    TEST_DB=mysql TEST_GALERA_PORTS=$(IFS=,; echo "${galera_ports[*]}") concurrency=1 run_suite "e2e-galera" "${cluster_tests[@]}"
    # On a failure, what the members said during the pass (their start-up's name-resolution notes left out).
    if [ "$total_fail" != "$galera_fail_before" ]; then
      for m in "$galera_dir"/m*; do
        echo "galera member $(basename "$m"), warnings and errors (last 30):"
        grep -E '\[(Warning|ERROR)\]|BF|long' "$m/error.log" | grep -v 'ignored in --skip-name-resolve mode' | tail -30 | sed 's/^/  /'
      done
    fi
  else
    echo "galera cluster did not start"; failed_why+=("e2e-galera: FAILED: the Galera cluster did not start (above)"); total_fail=$((total_fail + 1)); status=1
  fi
  bash scripts/galera-cluster.sh stop "$galera_dir"
  rm -rf "$galera_dir"
fi

echo
# What did not run and why (skipped tests and suites with their reasons, halves and passes left out), why the
# run failed if it did, then the closing line CI reads, alone on its line.
if [ ${#not_run[@]} -gt 0 ]; then
  echo "not run (${#not_run[@]}):"
  printf '  %s\n' "${not_run[@]}"
fi
# Why the run failed, again just above the total: a log cut short in the middle keeps its end.
if [ ${#failed_why[@]} -gt 0 ]; then
  echo "why it failed (${#failed_why[@]}):"
  printf '  %s\n' "${failed_why[@]:0:20}"
  [ ${#failed_why[@]} -le 20 ] || echo "  … and $(( ${#failed_why[@]} - 20 )) more above"
fi
echo "${total_pass} passed, ${total_fail} failed"
exit $status
