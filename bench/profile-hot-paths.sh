#!/usr/bin/env bash
# Profiles hot paths of a built tree under load (node --cpu-prof): a service in a temp folder (SQLite, or the
# database of PROFILE_DATABASE_URL), wrk on each row for SECONDS, then the summary of where the samples went.
#   bash bench/profile-hot-paths.sh [TREE (default .)] [PORT (default 18931)] [SECONDS (default 10)] [ROWS (default "bearer basic")]
# ROWS: any of ping, session, bearer, basic; one profile covers them all (run one row for a row's own profile).
# Run it on two trees (a `git worktree` of the older commit, built) to compare before and after a change.
set -euo pipefail
tree=$(cd "${1:-.}" && pwd); port="${2:-18931}"; seconds="${3:-10}"; rows="${4:-bearer basic}"
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/rows.sh"
data=$(mktemp -d); out="$data/profile"
url="http://127.0.0.1:$port"
cd "$tree"
env PORT="$port" DATA_DIR="$data" ADMIN_PASSWORD="$ROWS_PASSWORD" LOG_LEVEL=warn ${PROFILE_DATABASE_URL:+DATABASE_URL="$PROFILE_DATABASE_URL"} \
  node --cpu-prof --cpu-prof-dir="$out" dist/src/main.js > "$data/log" 2>&1 < /dev/null &
pid=$!
for _ in $(seq 1 100); do curl -s -o /dev/null "$url/api/v2/ping/" && break; sleep 0.2; done
row_credentials "$url"
for row in $rows; do
  row_request "$row"; header=(-H "$ROW_HEADER"); path=$ROW_PATH
  echo "$row: $(wrk -t1 -c32 -d"${seconds}s" "${header[@]}" "$url$path" | awk '/Requests\/sec/{print $2}') req/s"
done
kill -INT "$pid"; wait "$pid" || true
node "$here/dist/bench/profile-summary.js" "$out"/*.cpuprofile
if [ -n "${PROFILE_KEEP:-}" ]; then cp "$out"/*.cpuprofile "$PROFILE_KEEP"; fi
rm -rf "$data"
