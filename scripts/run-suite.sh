# run_suite LABEL FILES…: one `node --test` run of compiled test files, its TAP kept in
# test-output/LABEL.tap and its events (scripts/test-events.js) in test-output/LABEL.events, added to
# total_pass / total_fail; status becomes 1 when the run fails, and each test, suite or todo that did not
# run or count is appended to the not_run array with its reason, and each reason the run failed to the
# failed_why array (test-all.sh prints both before its total).
# Sourced by scripts/test-all.sh, and by test/test-runner.e2e-spec.ts, which proves that it fails a run in
# each way a run can look green without being so. concurrency defaults to 2.
#
# Every file runs under TEST_FILE_TIMEOUT_SECONDS (default 900): node's --test-timeout, which Node 22 applies
# to each file's process as a whole (inside it, tests get no default timeout), so a test that hangs, or an
# open handle that keeps the process alive after the last test, fails that file and the run goes on.
total_pass=${total_pass:-0}
total_fail=${total_fail:-0}
status=${status:-0}
concurrency="${concurrency:-2}"
[ -n "${not_run+set}" ] || not_run=()
[ -n "${failed_why+set}" ] || failed_why=()
run_suite_scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

run_suite() {
  local label="$1"; shift
  local log="test-output/${label}.tap" events="test-output/${label}.events"
  local file_timeout="${TEST_FILE_TIMEOUT_SECONDS:-900}"
  echo "=== ${label} (each file within ${file_timeout} s)"
  mkdir -p test-output
  rm -f "$events"
  node --test --test-concurrency="$concurrency" --test-timeout="$((file_timeout * 1000))" \
    --test-reporter=tap --test-reporter-destination=stdout \
    --test-reporter="${run_suite_scripts}/test-events.js" --test-reporter-destination="$events" \
    "$@" 2>&1 | tee "$log" | grep -E '^(not ok|# (tests|pass|fail|cancelled|skipped|todo) )|^ +not ok|# (SKIP|TODO)\s*$'
  local node_status=${PIPESTATUS[0]}
  # The verdict (scripts/test-verdict.js): its last line is "verdict <passed> <failed>".
  local verdict
  verdict=$(node "${run_suite_scripts}/test-verdict.js" "$events" "$node_status" "$label" "$@")
  local verdict_status=$?
  grep -v '^verdict \|: not run: ' <<<"$verdict"
  while IFS= read -r line; do failed_why+=("$line"); done < <(grep ': FAILED: ' <<<"$verdict")
  local line
  while IFS= read -r line; do not_run+=("$line"); done < <(grep ': not run: ' <<<"$verdict")
  local pass fail
  read -r _ pass fail <<<"$(grep '^verdict ' <<<"$verdict")"
  total_pass=$((total_pass + ${pass:-0})); total_fail=$((total_fail + ${fail:-1}))
  [ "$verdict_status" = 0 ] || status=1
}
