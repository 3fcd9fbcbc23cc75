#!/usr/bin/env bash
# One node against three (issue 47): load_bench's many-room phase on one node with SQLite, one
# node with PostgreSQL, then three nodes of one cluster on that PostgreSQL and a Redis, all on
# this machine. In the cluster each room's two players are on two nodes and its spectators on a
# third. Prints the three runs whole; the figures to compare are moves/s, the mover's and the
# last spectator's p99, and CPU per move: the servers' (all three summed) and the database's
# and Redis's (their processes' uids). By hand, never in CI.
#
#   tests/bench/cluster_compare.sh [BUILD_DIR] [load_bench flags...]   (default: build, --rooms 200)
# PHASES="cluster" runs only some of the three (sqlite, postgres, cluster); KEEP_LOGS=PREFIX
# keeps PostgreSQL's log as PREFIX.pg.log.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
[ $# -gt 0 ] && shift
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(--rooms 200 --seconds 10 --idle 0 --no-single)
bin=/usr/lib/postgresql/15/bin
[ -x "$bin/initdb" ] || { echo "needs postgresql-15 (scripts/deps.sh test)" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "needs redis-server (scripts/deps.sh test)" >&2; exit 1; }
dir=$(mktemp -d /tmp/plateau-cluster-compare-XXXXXX)
chmod 755 "$dir"
as_pg=() as_redis=()
if [ "$(id -u)" -eq 0 ]; then
  mkdir -p "$dir/pg" "$dir/redis"
  chown postgres "$dir/pg"
  id redis >/dev/null 2>&1 && chown redis "$dir/redis" && as_redis=(runuser -u redis --)
  as_pg=(runuser -u postgres --)
fi
pg_uid=$(stat -c %u "$dir/pg")
redis_uid=$(stat -c %u "$dir/redis")
# A free port for Redis (it listens on 127.0.0.1 only).
redis_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
stop() {
  [ -n "${KEEP_LOGS:-}" ] && cp "$dir/pg/log" "$KEEP_LOGS.pg.log" 2>/dev/null || true
  "${as_pg[@]}" "$bin/pg_ctl" -D "$dir/pg/data" -m immediate stop >/dev/null 2>&1 || true
  [ -f "$dir/redis/pid" ] && kill "$(cat "$dir/redis/pid")" 2>/dev/null || true
  sleep 0.2
  rm -rf "$dir"
}
trap stop EXIT
"${as_pg[@]}" "$bin/initdb" -D "$dir/pg/data" -U postgres -A trust -E UTF8 --locale=C >/dev/null
"${as_pg[@]}" "$bin/pg_ctl" -D "$dir/pg/data" -w -t 30 -l "$dir/pg/log" \
  -o "-c listen_addresses='' -k $dir/pg -p 5432 -c fsync=on -c synchronous_commit=on -c max_connections=200" \
  start >/dev/null
"${as_redis[@]}" redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no \
  --daemonize yes --dir "$dir/redis" --pidfile "$dir/redis/pid" --logfile "$dir/redis/log"
for _ in $(seq 50); do [ -f "$dir/redis/pid" ] && break; sleep 0.1; done
pg() { echo "postgresql:///$1?host=$dir/pg&port=5432&user=postgres"; }
db() { "${as_pg[@]}" "$bin/psql" -q -h "$dir/pg" -U postgres -d postgres -c "CREATE DATABASE $1" >/dev/null; }
phases=${PHASES:-sqlite postgres cluster}
mkdir -p "$dir/sqlite"
if [[ " $phases " == *" sqlite "* ]]; then
  echo "== one node, SQLite (--data $dir/sqlite)"
  "$build/tests/bench/load_bench" "${flags[@]}" --data "$dir/sqlite"
  echo
fi
if [[ " $phases " == *" postgres "* ]]; then
  echo "== one node, PostgreSQL 15 (same machine, Unix socket)"
  db one
  "$build/tests/bench/load_bench" "${flags[@]}" --store "$(pg one)" --db-uid "$pg_uid"
  echo
fi
[[ " $phases " == *" cluster "* ]] || exit 0
echo "== three nodes, PostgreSQL 15 + Redis $(redis-server --version | sed -E 's/.*v=([0-9.]+).*/\1/')"
db three
"$build/tests/bench/load_bench" "${flags[@]}" --store "$(pg three)" \
  --cluster "redis://127.0.0.1:$redis_port" --nodes 3 --db-uid "$pg_uid,$redis_uid"
