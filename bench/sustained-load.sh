#!/usr/bin/env bash
# One row under sustained load, on a fresh service process per run, two built trees alternating (issue 43, ninth
# part). `npm run bench` and cpu-per-request.sh interleave rows and builds in rounds of 1–3 s, so each process idles
# between its rounds, and V8 collects its old generation in that idle time; a process serving without a pause
# pays for that collection on its requests. This script does not pause: per run, 2 s of warm-up, then SECONDS of
# `wrk -t1 -c32` on the row, one process.
#   bash bench/sustained-load.sh BASE_TREE NEW_TREE [ROWS (default "session bearer")] [RUNS (default 3)] [SECONDS (default 5)]
# SUSTAINED_DATABASE=mysql: each run on a new MariaDB database at 127.0.0.1:3306 (root, no password) instead of SQLite.
# Per run: req/s; the service's CPU per request (/proc/PID/stat, its GC threads included); the share of the last
# young collection's objects that survived it (`--trace-gc-nvp`'s new_space_survive_rate_); the process's peak
# resident memory (VmHWM). Then the median of the runs, per row and build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/rows.sh"
base=$(cd "$1" && pwd); new=$(cd "$2" && pwd); rows=${3:-session bearer}; runs=${4:-3}; seconds=${5:-5}
database=${SUSTAINED_DATABASE:-sqlite}
tick=$(getconf CLK_TCK)
work=$(mktemp -d); pid=
cleanup() { [ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

for run in $(seq 1 "$runs"); do
  for row in $rows; do
    order="base new"; [ $((run % 2)) = 0 ] && order="new base"
    for build in $order; do
      tree=$base; [ "$build" = new ] && tree=$new
      data=$(mktemp -d -p "$work"); database_url=
      if [ "$database" = mysql ]; then
        db=svc_sustained_$$; database_url="mysql://root@127.0.0.1:3306/$db"
        mysql --host=127.0.0.1 --user=root -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
      fi
      start_service "$tree" "$data" "$database_url" --trace-gc-nvp
      pid=$SERVICE_PID; url=$SERVICE_URL
      row_credentials "$url"; row_request "$row"
      wrk -t1 -c32 -d2s -H "$ROW_HEADER" "$url$ROW_PATH" > /dev/null
      s1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
      out=$(wrk -t1 -c32 -d"${seconds}s" -H "$ROW_HEADER" "$url$ROW_PATH")
      s2=$(awk '{print $14 + $15}' "/proc/$pid/stat")
      if echo "$out" | grep -q 'Non-2xx'; then echo "$build $row: answers other than 2xx" >&2; exit 1; fi
      peak=$(awk '/VmHWM/ {print int($2 / 1024)}' "/proc/$pid/status")
      survived=$(grep -a 'gc=s ' "$data/log" | tail -1 | grep -o 'new_space_survive_rate_=[0-9.]*' | cut -d= -f2)
      kill -INT "$pid"; wait "$pid" || true; pid=
      n=$(echo "$out" | awk '/requests in/ {print $1}')
      rps=$(echo "$out" | awk '/Requests\/sec/ {printf "%d", $2}')
      echo "$row $build $rps $(( (s2 - s1) * 1000000 / tick / n )) ${survived:-?} $peak" | tee -a "$work/results"
      [ "$database" = mysql ] && mysql --host=127.0.0.1 --user=root -e "DROP DATABASE IF EXISTS $db"
      rm -rf "$data"
    done
  done
done
echo "median of $runs runs on $database (row build req/s µs-per-request survived-% peak-MiB):"
for row in $rows; do
  for build in base new; do
    med() { awk -v r="$row" -v b="$build" -v c="$1" '$1 == r && $2 == b {print $c}' "$work/results" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
    echo "$row $build $(med 3) $(med 4) $(med 5) $(med 6)"
  done
done
