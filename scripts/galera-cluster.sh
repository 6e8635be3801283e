#!/usr/bin/env bash
# A 3-member MariaDB Galera cluster on loopback for tests and trials (issue 14), from Debian's
# mariadb-server and galera-4: own datadirs under DIR, own ports, rsync SST, 64 MB buffer pools.
#
#   scripts/galera-cluster.sh start DIR PORT1 PORT2 PORT3   # SQL ports; gcomm/IST/SST ports are PORTn+100/+200/+300
#   scripts/galera-cluster.sh stop DIR                      # SIGTERM to each member by its pid file
#
# Member 1 bootstraps the cluster (--wsrep-new-cluster); 2 and 3 join one after the other by state
# transfer. Each member allows root over TCP from 127.0.0.1 without a password, as the test server does,
# and keeps Galera's default wsrep_sync_wait=0: the service sets causal reads on its own connections
# (SPEC §18, docs/deployment.md), and the Galera pass proves every guarantee holds so.
set -euo pipefail
cmd="${1:?start|stop}"; dir="${2:?DIR}"
provider=/usr/lib/galera/libgalera_smm.so

member_pid() { cat "$dir/m$1/mysqld.pid" 2>/dev/null || true; }

case "$cmd" in
stop)
  for i in 1 2 3; do
    pid=$(member_pid "$i")
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
  done
  for i in 1 2 3; do
    pid=$(member_pid "$i")
    for _ in $(seq 1 300); do [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  done
  exit 0 ;;
start) ;;
*) echo "usage: $0 start DIR PORT1 PORT2 PORT3 | stop DIR" >&2; exit 2 ;;
esac

ports=("${3:?PORT1}" "${4:?PORT2}" "${5:?PORT3}")
[ -f "$provider" ] || { echo "galera-4 is missing: apt-get install galera-4 rsync" >&2; exit 1; }
gcomm="gcomm://127.0.0.1:$((ports[0] + 100)),127.0.0.1:$((ports[1] + 100)),127.0.0.1:$((ports[2] + 100))"
mkdir -p "$dir"
started=$(date +%s)

for i in 1 2 3; do
  p=${ports[$((i - 1))]}
  m="$dir/m$i"
  mkdir -p "$m/data" "$m/tmp"
  # The members run as mysql: rsync's SST daemon, started by the joiner, would otherwise drop to nobody.
  chown -R mysql:mysql "$m" 2>/dev/null || true
  cat >"$m/my.cnf" <<CNF
[mysqld]
user=mysql
datadir=$m/data
tmpdir=$m/tmp
socket=$m/mysqld.sock
pid-file=$m/mysqld.pid
log-error=$m/error.log
port=$p
bind-address=127.0.0.1
skip-name-resolve
innodb_buffer_pool_size=64M
innodb_log_file_size=16M
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
character_set_server=utf8mb4
wsrep_on=ON
wsrep_provider=$provider
wsrep_cluster_name=svc_galera_test
wsrep_cluster_address=$gcomm
wsrep_node_name=m$i
wsrep_node_address=127.0.0.1
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:$((p + 100));ist.recv_addr=127.0.0.1:$((p + 200));gcache.size=32M;evs.suspect_timeout=PT5S"
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:$((p + 300))
wsrep_sync_wait=0
CNF
  if [ ! -d "$m/data/mysql" ]; then
    mariadb-install-db --defaults-file="$m/my.cnf" --user=mysql --auth-root-authentication-method=normal >"$m/install.log" 2>&1
  fi
done

wait_synced() {
  local i=$1 m="$dir/m$1"
  for _ in $(seq 1 600); do
    state=$(mariadb --socket="$m/mysqld.sock" -uroot -N -e "SHOW STATUS LIKE 'wsrep_local_state_comment'" 2>/dev/null | awk '{print $2}' || true)
    [ "$state" = Synced ] && return 0
    pid=$(member_pid "$i")
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.2
  done
  echo "member $i did not reach Synced; its log:" >&2
  tail -40 "$m/error.log" >&2
  return 1
}

for i in 1 2 3; do
  m="$dir/m$i"
  extra=()
  [ "$i" = 1 ] && extra=(--wsrep-new-cluster)
  setsid mariadbd --defaults-file="$m/my.cnf" "${extra[@]}" </dev/null >"$m/stdout.log" 2>&1 &
  wait_synced "$i"
  if [ "$i" = 1 ]; then
    mariadb --socket="$m/mysqld.sock" -uroot -e "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''; GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION; FLUSH PRIVILEGES;"
  fi
done
size=$(mariadb --host=127.0.0.1 --port="${ports[2]}" -uroot -N -e "SHOW STATUS LIKE 'wsrep_cluster_size'" | awk '{print $2}')
echo "galera cluster of $size members on ports ${ports[*]} started in $(( $(date +%s) - started ))s"
