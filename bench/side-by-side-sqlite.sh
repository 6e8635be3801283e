#!/usr/bin/env bash
# Two built trees side by side on SQLite (issue 43, fourth part): both services started at once, then ROUNDS
# interleaved rounds of `wrk -t1 -c32 -d2s` on ping and on bearer, each with the service's user and system CPU per
# request read from /proc/PID/stat around the run, and at the end what a process.nextTick costs each process.
#   bash bench/side-by-side-sqlite.sh BASE_TREE NEW_TREE [ROUNDS (default 6)]
# Needs wrk and Node.js 22 first on PATH.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
base=$(cd "$1" && pwd); new=$(cd "$2" && pwd); rounds=${3:-6}
work=$(mktemp -d); pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
declare -A url pid token
for build in base new; do
  tree=$base; [ "$build" = new ] && tree=$new
  mkdir -p "$work/$build"
  (cd "$work/$build"; exec env -i PATH="$PATH" HOST=127.0.0.1 PORT=0 DATA_DIR="$work/$build" ADMIN_PASSWORD=Prof-admin-pass-1 LOG_LEVEL=warn \
    node -r "$here/next-tick-cost.js" "$tree/dist/src/main.js" > "$work/$build/log" 2>&1 < /dev/null) &
  pid[$build]=$!; pids+=("$!")
done
for build in base new; do
  for _ in $(seq 1 150); do grep -q '"event":"listening"' "$work/$build/log" && break; sleep 0.2; done
  url[$build]=$(grep -o '"event":"listening","url":"[^"]*' "$work/$build/log" | sed 's/.*"url":"//; s/\/$//')
  token[$build]=$(curl -s -u admin:Prof-admin-pass-1 -H 'Content-Type: application/json' -d '{"description":"side by side","scope":"read"}' \
    "${url[$build]}/api/v2/tokens/" | node -pe 'JSON.parse(require("fs").readFileSync(0)).token')
done
# One wrk run: "req/s u<user µs> s<system µs>" per request of the process.
measure() {
  local p=$1; shift
  read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$p/stat")
  local out; out=$(wrk -t1 -c32 -d2s "$@")
  read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$p/stat")
  local n; n=$(awk '/requests in/{print $1}' <<< "$out")
  local tick=$((1000000 / $(getconf CLK_TCK)))
  printf '%6d/s u%-3d s%-3d' "$(awk '/Requests\/sec/{printf "%d", $2}' <<< "$out")" $(( (u1 - u0) * tick / n )) $(( (s1 - s0) * tick / n ))
}
for build in base new; do measure "${pid[$build]}" "${url[$build]}/api/v2/ping/" > /dev/null; done
echo "round  base ping             base bearer           new ping              new bearer"
for round in $(seq 1 "$rounds"); do
  line="$round    "
  for build in base new; do
    line+="  $(measure "${pid[$build]}" "${url[$build]}/api/v2/ping/")"
    line+="  $(measure "${pid[$build]}" -H "Authorization: Bearer ${token[$build]}" "${url[$build]}/api/v2/me/")"
  done
  echo "$line"
done
for build in base new; do kill -USR2 "${pid[$build]}"; done
sleep 2
for build in base new; do echo "$build: $(grep -h '^nextTick' "$work/$build/log" || echo 'nextTick not measured')"; done
