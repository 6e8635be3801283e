#!/usr/bin/env bash
# Instructions (Ir) per request of one row under valgrind --tool=callgrind: less noisy than req/s on a shared
# VM, though GC and JIT still move it (±15 % between runs here: take the mean of several). Issue 39 and 43.
#   bash bench/instructions-per-request.sh TREE PORT ROW(ping|session|bearer|bare|empty) COUNT
# bare and empty are bench's reference servers (the node:http route and the empty Nest app, on a free port; PORT
# is then unused): the service's ping against them, counted the same way. IR_DATABASE_URL: the service on that
# database instead of SQLite (a fresh one: mysql://root@127.0.0.1:3306/<new database>).
# TREE: a built tree (its dist/). Start-up under valgrind takes about 75 s; 1500 requests warm the JIT, then the
# counters are zeroed, COUNT requests are made and the counters dumped. One keep-alive connection (CONC=1, the
# default): requests one at a time cost the same in every run (±2 %), where with 4 connections how many requests
# one turn of the event loop took varied with the machine's load (±20 %).
set -euo pipefail
tree=$(cd "$1" && pwd); port=$2; row=$3; count=$4
# Node.js 22 first on PATH, valgrind installed (apt-get install valgrind).
d=$(mktemp -d); url=http://127.0.0.1:$port
vg() { valgrind --tool=callgrind --callgrind-out-file=$d/cg.out --smc-check=all-non-file node "$@"; }
case $row in
  bare|empty)
    script=$tree/dist/bench/$([ $row = bare ] && echo bare-server.js || echo empty-nest-server.js)
    (cd $d && vg $script > $d/out.log 2> $d/vg.log &)
    for i in $(seq 1 300); do grep -q '^listening' $d/out.log 2>/dev/null && break; sleep 1; done
    url=$(sed -n 's/^listening //p' $d/out.log); port=${url##*:} ;;
  *)
    (cd $d && export ${IR_DATABASE_URL:+DATABASE_URL="$IR_DATABASE_URL"} PORT=$port DATA_DIR=$d ADMIN_PASSWORD=Prof-admin-pass-1 LOG_LEVEL=warn && vg $tree/dist/src/main.js > $d/vg.log 2>&1 &)
    for i in $(seq 1 300); do curl -s -o /dev/null -m 2 $url/api/v2/ping/ && break; sleep 1; done ;;
esac
vpid=$(ss -ltnp "sport = :$port" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
header=""
if [ "$row" = session ]; then
  jar=$d/jar; curl -s -c $jar -o /dev/null $url/api/login/; csrf=$(awk '$6=="csrftoken"{print $7}' $jar)
  curl -s -m 120 -b $jar -c $jar -o /dev/null -H "X-CSRFToken: $csrf" -H "Referer: $url/api/login/" --data 'username=admin&password=Prof-admin-pass-1' $url/api/login/
  header="Cookie: $(awk '$6!="csrftoken" && NF>=7 {print $6"="$7}' $jar | paste -sd';' -)"; path=/api/v2/me/
elif [ "$row" = bearer ]; then
  token=$(curl -s -m 120 -u admin:Prof-admin-pass-1 -X POST $url/api/v2/tokens/ | node -pe 'JSON.parse(require("fs").readFileSync(0)).token')
  header="Authorization: Bearer $token"; path=/api/v2/me/
elif [ "$row" = ping ]; then path=/api/v2/ping/
else path=/; fi
run() { node -e '
const http = require("http"); const CONC = Number(process.env.CONC || 1);
const agent = new http.Agent({ keepAlive: true, maxSockets: CONC });
const [url, n, header] = [process.argv[1], Number(process.argv[2]), process.argv[3]];
const headers = header ? { [header.split(": ")[0]]: header.split(": ").slice(1).join(": ") } : {};
let done = 0, bad = 0; const one = () => new Promise((res) => http.get(url, { agent, headers }, (r) => { if (r.statusCode !== 200) bad++; r.resume(); r.on("end", res); }));
(async () => { const w = async () => { while (done < n) { done++; await one(); } }; await Promise.all(Array.from({ length: CONC }, w)); if (bad) console.error("non-200:", bad); agent.destroy(); })();
' "$url$path" "$1" "$header"; }
run "${WARMUP:-1500}"   # warm up (JIT)
callgrind_control -z $vpid > /dev/null
run $count
callgrind_control -d $vpid > /dev/null
sleep 2
ir=$(grep -h "^summary:\|^totals:" $d/cg.out.* 2>/dev/null | tail -1 | awk '{print $2}')
kill -INT $vpid; sleep 1; kill -9 $vpid 2>/dev/null || true
echo "$row $tree Ir/request: $(( ir / count ))"
# IR_KEEP=FILE keeps the counts (for callgrind_annotate: which functions of Node.js and V8 the requests ran).
if [ -n "${IR_KEEP:-}" ]; then cat $(ls $d/cg.out.* | tail -1) > "$IR_KEEP"; fi
rm -rf $d
