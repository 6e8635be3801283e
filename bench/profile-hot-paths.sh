#!/usr/bin/env bash
# Profiles hot paths of a built tree under load (node --cpu-prof): a service in a temp folder (SQLite, or the
# database of PROFILE_DATABASE_URL), wrk on each row for SECONDS, then the summary of where the samples went.
#   bash bench/profile-hot-paths.sh [TREE (default .)] [PORT (default 18931)] [SECONDS (default 10)] [ROWS (default "bearer basic")]
# ROWS: any of ping, session, bearer, basic; one profile covers them all (run one row for a row's own profile).
# Run it on two trees (a `git worktree` of the older commit, built) to compare before and after a change.
set -euo pipefail
tree=$(cd "${1:-.}" && pwd); port="${2:-18931}"; seconds="${3:-10}"; rows="${4:-bearer basic}"
here=$(cd "$(dirname "$0")/.." && pwd)
data=$(mktemp -d); out="$data/profile"
url="http://127.0.0.1:$port"
cd "$tree"
env PORT="$port" DATA_DIR="$data" ADMIN_PASSWORD=Prof-admin-pass-1 LOG_LEVEL=warn ${PROFILE_DATABASE_URL:+DATABASE_URL="$PROFILE_DATABASE_URL"} \
  node --cpu-prof --cpu-prof-dir="$out" dist/src/main.js > "$data/log" 2>&1 < /dev/null &
pid=$!
for _ in $(seq 1 100); do curl -s -o /dev/null "$url/api/v2/ping/" && break; sleep 0.2; done
for row in $rows; do
  case "$row" in
    ping) header=(); path=/api/v2/ping/ ;;
    bearer)
      token=$(curl -s -u admin:Prof-admin-pass-1 -X POST "$url/api/v2/tokens/" | node -pe 'JSON.parse(require("fs").readFileSync(0)).token')
      header=(-H "Authorization: Bearer $token"); path=/api/v2/me/ ;;
    basic) header=(-H "Authorization: Basic $(printf admin:Prof-admin-pass-1 | base64)"); path=/api/v2/me/ ;;
    session)
      jar="$data/jar"
      curl -s -c "$jar" -o /dev/null "$url/api/login/"
      csrf=$(awk '$6 == "csrftoken" {print $7}' "$jar")
      curl -s -b "$jar" -c "$jar" -o /dev/null -H "X-CSRFToken: $csrf" -H "Referer: $url/api/login/" --data 'username=admin&password=Prof-admin-pass-1' "$url/api/login/"
      cookie=$(awk '$6 != "csrftoken" && NF >= 7 {print $6 "=" $7}' "$jar" | paste -sd ';' -)
      header=(-H "Cookie: $cookie"); path=/api/v2/me/ ;;
    *) echo "unknown row $row" >&2; exit 1 ;;
  esac
  echo "$row: $(wrk -t1 -c32 -d"${seconds}s" "${header[@]}" "$url$path" | awk '/Requests\/sec/{print $2}') req/s"
done
kill -INT "$pid"; wait "$pid" || true
node "$here/dist/bench/profile-summary.js" "$out"/*.cpuprofile
if [ -n "${PROFILE_KEEP:-}" ]; then cp "$out"/*.cpuprofile "$PROFILE_KEEP"; fi
rm -rf "$data"
