#!/usr/bin/env bash
# CPU time per request of the service process and of MariaDB (`mariadbd`), for two built trees side by side on
# MariaDB, in interleaved rounds (issue 43). On a shared VM req/s moves ±30–50 % between rounds; the CPU a
# request costs, read from /proc/PID/stat around each wrk run, moves far less, and shows the database's share,
# which req/s hides (MariaDB runs on the same 2 cores as the service and wrk).
#   bash bench/cpu-per-request.sh BASE_TREE NEW_TREE [ROUNDS (default 5)] [SECONDS (default 3)]
# Each TREE is a built tree (its dist/). Needs wrk, Node.js 22 first on PATH, MariaDB at BENCH_MYSQL_URL's server
# (root without a password on 127.0.0.1:3306 by default). Rows: ping, session, repeated basic, bearer, each with
# one credential on all 32 connections, as `npm run bench` sends them. CPU_DATABASE=sqlite: both on SQLite instead
# (the database's column reads 0). At the end, what a process.nextTick costs each process (next-tick-cost.js,
# preloaded; issue 43, fourth part: start-up could leave it several times slower).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/rows.sh"
database=${CPU_DATABASE:-mysql}
base=$(cd "$1" && pwd); new=$(cd "$2" && pwd); rounds=${3:-5}; seconds=${4:-3}
work=$(mktemp -d); pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
mariadbd_pid=
[ "$database" = sqlite ] || mariadbd_pid=$(pgrep -x mariadbd | head -1)
tick=$(getconf CLK_TCK)
cpu() { if [ -n "$1" ]; then awk '{print $14 + $15}' "/proc/$1/stat"; else echo 0; fi; }

declare -A url pid cookie token
for build in base new; do
  tree=$base; [ "$build" = new ] && tree=$new
  db=svc_cpu_${build}_$$; database_url=
  if [ "$database" != sqlite ]; then
    mysql --host=127.0.0.1 --user=root -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
    database_url="mysql://root@127.0.0.1:3306/$db"
  fi
  mkdir -p "$work/$build"
  start_service "$tree" "$work/$build" "$database_url" -r "$here/next-tick-cost.js"
  pid[$build]=$SERVICE_PID; pids+=("$SERVICE_PID"); url[$build]=$SERVICE_URL
  row_credentials "${url[$build]}"
  cookie[$build]=$ROW_COOKIE; token[$build]=$ROW_TOKEN
done

echo "CPU per request on $database, mean of $rounds interleaved rounds of ${seconds}s (wrk -t1 -c32); service and mariadbd from /proc/PID/stat"
results=$work/results
for round in $(seq 1 "$rounds"); do
  for row in ping session basic bearer; do
    for build in base new; do
      row_request "$row" "${cookie[$build]}" "${token[$build]}"; header=$ROW_HEADER; path=$ROW_PATH
      s1=$(cpu "${pid[$build]}"); m1=$(cpu "$mariadbd_pid")
      out=$(wrk -t1 -c32 -d"${seconds}s" -H "$header" "${url[$build]}$path")
      s2=$(cpu "${pid[$build]}"); m2=$(cpu "$mariadbd_pid")
      if echo "$out" | grep -q 'Non-2xx'; then echo "$build $row: answers other than 2xx" >&2; exit 1; fi
      n=$(echo "$out" | awk '/requests in/ {print $1}')
      rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
      echo "$row $build $rps $(( (s2 - s1) * 1000000 / tick / n )) $(( (m2 - m1) * 1000000 / tick / n ))" >> "$results"
    done
  done
done
awk '{ k = $1 " " $2; n[k]++; rps[k] += $3; svc[k] += $4; db[k] += $5 }
  END {
    printf "%-8s %-5s %8s %12s %12s %10s %14s\n", "row", "build", "req/s", "service µs", "mariadbd µs", "total µs", "ping/total"
    split("ping session basic bearer", rows, " ")
    for (i = 1; i <= 4; i++) for (b = 0; b < 2; b++) {
      build = b ? "new" : "base"; k = rows[i] " " build; p = "ping " build
      total = (svc[k] + db[k]) / n[k]; pingTotal = (svc[p] + db[p]) / n[p]
      printf "%-8s %-5s %8d %12d %12d %10d %14.2f\n", rows[i], build, rps[k] / n[k], svc[k] / n[k], db[k] / n[k], total, pingTotal / total
    }
  }' "$results"
for build in base new; do kill -USR2 "${pid[$build]}"; done
sleep 2
for build in base new; do echo "$build: $(grep -h '^nextTick' "$work/$build/log" || echo 'nextTick not measured')"; done
if [ "$database" != sqlite ]; then
  for build in base new; do mysql --host=127.0.0.1 --user=root -e "DROP DATABASE IF EXISTS svc_cpu_${build}_$$"; done
fi
