# Sourced by the bench's shell scripts: the service they start, and the rows they load (ping, session, basic,
# bearer on /api/v2/me/), each with one credential of the bootstrap admin (password ROWS_PASSWORD,
# Prof-admin-pass-1 unless set).
ROWS_PASSWORD=${ROWS_PASSWORD:-Prof-admin-pass-1}

# start_service TREE DIR DATABASE_URL [NODE_ARGS...]: starts the service of the built TREE in the background on a
# free loopback port, its data and its log (DIR/log) in DIR, on DATABASE_URL (empty: SQLite in DIR), with NODE_ARGS
# before the script; sets SERVICE_PID, and SERVICE_URL once it listens (empty if it did not within 30 s).
start_service() {
  local tree=$1 dir=$2 database_url=$3
  shift 3
  (cd "$dir"; exec env PORT=0 HOST=127.0.0.1 DATA_DIR="$dir" ADMIN_PASSWORD="$ROWS_PASSWORD" LOG_LEVEL=info \
    ${database_url:+DATABASE_URL="$database_url"} node "$@" "$tree/dist/src/main.js" > "$dir/log" 2>&1 < /dev/null) &
  SERVICE_PID=$!
  for _ in $(seq 1 150); do grep -q '"event":"listening"' "$dir/log" && break; sleep 0.2; done
  SERVICE_URL=$(grep -o '"event":"listening","url":"[^"]*' "$dir/log" | sed 's/.*"url":"//; s/\/$//')
}

# row_credentials URL: logs in to the service at URL (the form, as a browser: CSRF cookie, then the POST) and
# makes a personal token; sets ROW_COOKIE (a Cookie header of the session) and ROW_TOKEN.
row_credentials() {
  local url=$1 jar csrf
  jar=$(mktemp)
  curl -s -c "$jar" -o /dev/null "$url/api/login/"
  csrf=$(awk '$6 == "csrftoken" {print $7}' "$jar")
  curl -s -b "$jar" -c "$jar" -o /dev/null -H "X-CSRFToken: $csrf" -H "Referer: $url/api/login/" \
    --data "username=admin&password=$ROWS_PASSWORD" "$url/api/login/"
  ROW_COOKIE="Cookie: $(awk '$6 != "csrftoken" && NF >= 7 {print $6 "=" $7}' "$jar" | paste -sd ';' -)"
  rm -f "$jar"
  ROW_TOKEN=$(curl -s -u "admin:$ROWS_PASSWORD" -X POST "$url/api/v2/tokens/" | node -pe 'JSON.parse(require("fs").readFileSync(0)).token')
}

# row_request ROW [COOKIE] [TOKEN]: sets ROW_HEADER and ROW_PATH of that row (the credentials default to the last
# row_credentials call's).
row_request() {
  case $1 in
    ping) ROW_HEADER="Accept: application/json"; ROW_PATH=/api/v2/ping/ ;;
    session) ROW_HEADER=${2:-$ROW_COOKIE}; ROW_PATH=/api/v2/me/ ;;
    basic) ROW_HEADER="Authorization: Basic $(printf 'admin:%s' "$ROWS_PASSWORD" | base64)"; ROW_PATH=/api/v2/me/ ;;
    bearer) ROW_HEADER="Authorization: Bearer ${3:-$ROW_TOKEN}"; ROW_PATH=/api/v2/me/ ;;
    *) echo "unknown row $1 (ping, session, basic, bearer)" >&2; return 1 ;;
  esac
}
