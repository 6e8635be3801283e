#!/usr/bin/env bash
# What `npm test` needs beyond node_modules (issue 34): Debian packages and a MariaDB/MySQL server. Checked
# first, so a missing tool is one message at the start, never a late failure of one test. With
# TEST_INSTALL=1 (what .ci/run sets; root on Debian) it installs what is missing and starts MariaDB instead.
# Run by scripts/test-all.sh before it builds; reads TEST_DATABASES, TEST_GALERA and TEST_MYSQL_URL as the suite does.
set -uo pipefail
databases=" ${TEST_DATABASES:-sqlite mysql} "
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 22 ]; then
  echo "npm test needs Node.js 22 or newer (this is $(node --version)): see the README's first lines, or .ci/run, which fetches it."
  exit 1
fi
missing=()
need() { # need PACKAGE CHECK…: PACKAGE is missing when the check fails
  local package="$1"; shift
  "$@" >/dev/null 2>&1 || missing+=("$package")
}
need curl command -v curl                                   # test/walkthrough.e2e-spec.ts runs the real curl
need chromium test -x "${CHROMIUM_PATH:-/usr/bin/chromium}"  # the browser tests (playwright-core never downloads one)
need ansible test -d /usr/lib/python3/dist-packages/ansible_collections/awx/awx  # test/awx-collection.e2e-spec.ts
need docker-compose command -v docker-compose               # test/deployment-files.e2e-spec.ts
need slapd test -x /usr/sbin/slapd                          # test/ldap.e2e-spec.ts starts its own slapd per file
need freeradius test -x /usr/sbin/freeradius                # test/radius.e2e-spec.ts starts its own FreeRADIUS per file
need freeradius-utils command -v radtest                    # radtest, to try the test configuration by hand
need ldap-utils command -v ldapmodify                       # ... and changes its entries with ldapmodify
need rsyslog test -x /usr/sbin/rsyslogd                     # test/log-forwarding.e2e-spec.ts starts its own rsyslogd as the log receiver
if [[ "$databases" == *" mysql "* ]]; then
  need mariadb-server test -x /usr/sbin/mariadbd
  need mariadb-client command -v mysql
  if [[ "${TEST_GALERA:-on}" != off ]]; then
    need galera-4 test -f /usr/lib/galera/libgalera_smm.so   # scripts/galera-cluster.sh
    need rsync command -v rsync
  fi
fi
mysql_url="${TEST_MYSQL_URL:-mysql://root@127.0.0.1:3306}"
mysql_answers() {
  node -e 'require("mysql2/promise").createConnection(process.argv[1]).then((c) => c.end(), () => process.exit(1))' "$mysql_url" >/dev/null 2>&1
}

if [ ${#missing[@]} -gt 0 ] && [ "${TEST_INSTALL:-}" = 1 ]; then
  echo "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" || { echo "could not install: ${missing[*]}"; exit 1; }
  # Debian starts a system slapd after installing it where it can; the tests never use it (each starts its
  # own on free loopback ports), so it is stopped by its pid rather than left holding port 389.
  if [[ " ${missing[*]} " == *" slapd "* ]] && [ -f /run/slapd/slapd.pid ]; then kill "$(cat /run/slapd/slapd.pid)" 2>/dev/null || true; fi
  # The same for a system FreeRADIUS (each RADIUS test file starts its own on a free loopback port).
  if [[ " ${missing[*]} " == *" freeradius "* ]] && [ -f /run/freeradius/freeradius.pid ]; then kill "$(cat /run/freeradius/freeradius.pid)" 2>/dev/null || true; fi
  # And a system rsyslogd (the log-forwarding test starts its own on free loopback ports).
  if [[ " ${missing[*]} " == *" rsyslog "* ]] && [ -f /run/rsyslogd.pid ]; then kill "$(cat /run/rsyslogd.pid)" 2>/dev/null || true; fi
  missing=()
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "npm test needs Debian packages that are not installed: ${missing[*]}"
  echo "  install them with: apt-get install --no-install-recommends ${missing[*]}"
  echo "  (or TEST_INSTALL=1 npm test as root installs them; TEST_DATABASES=sqlite skips MariaDB, TEST_GALERA=off the cluster)"
  exit 1
fi

if [[ "$databases" == *" mysql "* ]] && ! mysql_answers; then
  if [ "${TEST_INSTALL:-}" = 1 ]; then
    # Started as this machine's kind starts it; root then may connect over TCP without a password.
    mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld 2>/dev/null || true
    start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
    for _ in $(seq 1 60); do mysqladmin --user=root ping >/dev/null 2>&1 && break; sleep 1; done
    mysql --host=127.0.0.1 --user=root -e 'SELECT 1' >/dev/null 2>&1 ||
      mysql --user=root -e "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''; GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION; FLUSH PRIVILEGES;"
  fi
  if ! mysql_answers; then
    echo "npm test needs a MariaDB/MySQL server at $mysql_url (TEST_MYSQL_URL) where the user may create databases."
    echo "  start one (start-stop-daemon --start --background --exec /usr/sbin/mariadbd), or TEST_INSTALL=1 npm test as root,"
    echo "  or run only the SQLite half: TEST_DATABASES=sqlite npm test"
    exit 1
  fi
fi
