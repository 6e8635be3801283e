# plan_runs: which compiled files each pass of scripts/test-all.sh runs (dist/ and test/ of the current
# directory), and a line in not_run for every half, pass or file left out, with why. Sets the arrays unit, e2e,
# browser, cluster_tests and databases, and galera_wanted (1 when the Galera pass should run). A TEST_FILTER
# that matches no e2e or browser file, or a Galera pass whose marked files are missing or none, fails the run
# (status=1, one more in total_fail). Sourced by test-all.sh and by test/test-runner.e2e-spec.ts.
[ -n "${not_run+set}" ] || not_run=()

# names FILES: their base names on one line; matching [-v] FILES: those TEST_FILTER matches (-v: does not).
plan_names() { local f; for f in "$@"; do printf '%s ' "$(basename "$f" .js)"; done; }
plan_matching() {
  local invert=()
  [ "$1" = -v ] && { invert=(-v); shift; }
  [ $# -eq 0 ] || printf '%s\n' "$@" | grep "${invert[@]}" -E "$TEST_FILTER"
}

plan_runs() {
  local scripts_dir db
  scripts_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  mapfile -t unit < <(find dist/src -name '*.spec.js' 2>/dev/null | sort)
  mapfile -t e2e < <(find dist/test -maxdepth 1 -name '*.e2e-spec.js' | sort)
  mapfile -t browser < <(find dist/test -maxdepth 1 -name '*.browser-spec.js' | sort)
  databases=()
  for db in sqlite mysql; do
    [[ " ${TEST_DATABASES:-sqlite mysql} " == *" $db "* ]] && databases+=("$db")
  done

  # The Galera pass's files, before TEST_FILTER: a marked file that is gone fails the run.
  galera_wanted=0
  [[ " ${databases[*]} " == *" mysql "* && "${TEST_GALERA:-on}" != off ]] && galera_wanted=1
  cluster_tests=()
  local galera_list galera_status
  galera_list=$(bash "$scripts_dir/galera-files.sh" test dist/test)
  galera_status=$?
  [ -z "$galera_list" ] || mapfile -t cluster_tests <<<"$galera_list"
  if [ "$galera_status" != 0 ] && [ "$galera_wanted" = 1 ]; then
    echo "galera: the Galera pass has a missing or empty file list (above)"; total_fail=$((total_fail + 1)); status=1
  fi

  if [ -n "${TEST_FILTER:-}" ]; then
    local filtered_out
    mapfile -t filtered_out < <(plan_matching -v "${e2e[@]}" "${browser[@]}")
    mapfile -t e2e < <(plan_matching "${e2e[@]}")
    mapfile -t browser < <(plan_matching "${browser[@]}")
    mapfile -t cluster_tests < <(plan_matching "${cluster_tests[@]}")
    # A filter that matches nothing is a typo, not a green run (README, "Running the tests").
    if [ ${#e2e[@]} -eq 0 ] && [ ${#browser[@]} -eq 0 ]; then
      echo "TEST_FILTER=${TEST_FILTER} matches no e2e or browser file: nothing ran"; total_fail=$((total_fail + 1)); status=1
    fi
    [ ${#filtered_out[@]} -eq 0 ] || not_run+=("${#filtered_out[@]} files TEST_FILTER=${TEST_FILTER} does not match: $(plan_names "${filtered_out[@]}")")
  fi

  for db in sqlite mysql; do
    [[ " ${databases[*]} " == *" $db "* ]] || not_run+=("the ${db} half (TEST_DATABASES=${TEST_DATABASES:-}): $(plan_names "${e2e[@]}" "${browser[@]}")")
  done
  if [ "$galera_wanted" = 0 ]; then
    local why="TEST_DATABASES has no mysql"
    [ "${TEST_GALERA:-on}" != off ] || why="TEST_GALERA=off"
    if [ ${#cluster_tests[@]} -gt 0 ]; then not_run+=("the Galera pass (${why}): $(plan_names "${cluster_tests[@]}")"); else not_run+=("the Galera pass (${why})"); fi
  elif [ ${#cluster_tests[@]} -eq 0 ] && [ -n "${TEST_FILTER:-}" ]; then
    not_run+=("the Galera pass: no file marked // @galera matches TEST_FILTER=${TEST_FILTER}")
  fi
}
