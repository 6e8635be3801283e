#!/usr/bin/env bash
# Profiles the authenticated hot paths of a built tree under load (node --cpu-prof): a service on SQLite in a
# temp folder, wrk on bearer then repeat basic for SECONDS each, then the summary of where the samples went.
#   bash bench/profile-hot-paths.sh [TREE (default .)] [PORT (default 18931)] [SECONDS (default 10)]
# Run it on two trees (a `git worktree` of the older commit, built) to compare before and after a change.
set -euo pipefail
tree=$(cd "${1:-.}" && pwd); port="${2:-18931}"; seconds="${3:-10}"
here=$(cd "$(dirname "$0")/.." && pwd)
data=$(mktemp -d); out="$data/profile"
cd "$tree"
PORT="$port" DATA_DIR="$data" ADMIN_PASSWORD=Prof-admin-pass-1 LOG_LEVEL=warn \
  node --cpu-prof --cpu-prof-dir="$out" dist/src/main.js > "$data/log" 2>&1 < /dev/null &
pid=$!
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/api/v2/ping/" && break; sleep 0.2; done
token=$(curl -s -u admin:Prof-admin-pass-1 -X POST "http://127.0.0.1:$port/api/v2/tokens/" | node -pe 'JSON.parse(require("fs").readFileSync(0)).token')
echo "bearer: $(wrk -t1 -c32 -d"${seconds}s" -H "Authorization: Bearer $token" "http://127.0.0.1:$port/api/v2/me/" | awk '/Requests\/sec/{print $2}') req/s"
echo "basic:  $(wrk -t1 -c32 -d"${seconds}s" -H "Authorization: Basic $(printf admin:Prof-admin-pass-1 | base64)" "http://127.0.0.1:$port/api/v2/me/" | awk '/Requests\/sec/{print $2}') req/s"
kill -INT "$pid"; wait "$pid" || true
node "$here/dist/bench/profile-summary.js" "$out"/*.cpuprofile
rm -rf "$data"
