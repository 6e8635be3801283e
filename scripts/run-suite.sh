# run_suite LABEL FILES…: one `node --test` run of compiled test files, its TAP kept in
# test-output/LABEL.tap, added to total_pass / total_fail; status becomes 1 when the run fails.
# Sourced by scripts/test-all.sh, and by test/test-runner.e2e-spec.ts, which proves that it fails a run
# with a failed hook, a cancelled test or an unexplained skip. concurrency defaults to 2.
total_pass=${total_pass:-0}
total_fail=${total_fail:-0}
status=${status:-0}
concurrency="${concurrency:-2}"
run_suite_verdict="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/tap-verdict.js"

run_suite() {
  local label="$1"; shift
  local log="test-output/${label}.tap"
  echo "=== ${label}"
  mkdir -p test-output
  node --test --test-concurrency="$concurrency" "$@" 2>&1 | tee "$log" | grep -E '^(not ok|# (tests|pass|fail|cancelled|skipped|todo) )|^ +not ok|# (SKIP|TODO)\s*$'
  local node_status=${PIPESTATUS[0]}
  # The verdict (scripts/tap-verdict.js): node's exit status, failures, cancelled tests and unexplained
  # skips all fail the suite; its last line is "verdict <passed> <failed>".
  local verdict
  verdict=$(node "$run_suite_verdict" "$log" "$node_status" "$label")
  local verdict_status=$?
  grep -v '^verdict ' <<<"$verdict"
  local pass fail
  read -r _ pass fail <<<"$(grep '^verdict ' <<<"$verdict")"
  total_pass=$((total_pass + ${pass:-0})); total_fail=$((total_fail + ${fail:-1}))
  [ "$verdict_status" = 0 ] || status=1
}

