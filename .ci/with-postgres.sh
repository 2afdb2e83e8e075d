#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL 15 cluster (Debian's binaries, installed but not
# running): initdb into a temp folder, start on a free port of 127.0.0.1 (trust auth, unix socket in
# the temp folder), export AGENTCHART_TEST_DATABASE_URL, run the command, then stop the cluster and
# delete the folder — also when the command fails or the script is interrupted.
#
#   bash .ci/with-postgres.sh npm run test:pg
#
# As root the cluster runs as the `postgres` user; as anyone else it runs as that user.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 <command> [args…]" >&2
  exit 2
fi
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
if [ ! -x "$PG_BIN/initdb" ]; then
  echo "no PostgreSQL at $PG_BIN (Debian: apt-get install postgresql-15, or set PG_BIN)" >&2
  exit 1
fi

cluster="$(mktemp -d /tmp/agentchart-pg.XXXXXX)"
if [ "$(id -u)" -eq 0 ]; then
  chown postgres:postgres "$cluster"
  as_owner() { runuser -u postgres -- "$@"; }
else
  as_owner() { "$@"; }
fi
chmod 700 "$cluster"

stop_cluster() {
  local status=$?
  if [ -f "$cluster/data/postmaster.pid" ]; then
    as_owner "$PG_BIN/pg_ctl" -D "$cluster/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$cluster"
  exit "$status"
}
trap stop_cluster EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port="$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')"
as_owner "$PG_BIN/initdb" -D "$cluster/data" -U postgres --auth=trust --encoding=UTF8 --no-locale >/dev/null
as_owner "$PG_BIN/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w \
  -o "-p $port -k $cluster -c listen_addresses=127.0.0.1" start >/dev/null
echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (cluster in $cluster)"

export AGENTCHART_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
"$@"
