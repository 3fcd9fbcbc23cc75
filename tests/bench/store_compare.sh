#!/usr/bin/env bash
# The store's cost, side by side (issue 47): load_bench's many-room phase on the embedded SQLite
# store, then on a throwaway PostgreSQL 15 on this machine (a Unix socket in a private folder,
# fsync on, synchronous_commit on: a move durable before it is shown, as with SQLite). Prints
# both runs whole; the figures to compare are moves/s, the mover's p99, and CPU per move (the
# server's, and for PostgreSQL the database's too). By hand, never in CI.
#
#   tests/bench/store_compare.sh [BUILD_DIR] [load_bench flags...]   (default: build, --rooms 200)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
[ $# -gt 0 ] && shift
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(--rooms 200 --seconds 10 --idle 0 --no-single)
bin=/usr/lib/postgresql/15/bin
[ -x "$bin/initdb" ] || { echo "needs postgresql-15 (scripts/deps.sh test)" >&2; exit 1; }
dir=$(mktemp -d /tmp/plateau-store-compare-XXXXXX)
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres "$dir"
  as_pg=(runuser -u postgres --)
fi
pg_uid=$(stat -c %u "$dir")
stop() {
  "${as_pg[@]}" "$bin/pg_ctl" -D "$dir/pg" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT
"${as_pg[@]}" "$bin/initdb" -D "$dir/pg" -U postgres -A trust -E UTF8 --locale=C >/dev/null
"${as_pg[@]}" "$bin/pg_ctl" -D "$dir/pg" -w -t 30 -l "$dir/pg.log" \
  -o "-c listen_addresses='' -k $dir -p 5432 -c fsync=on -c synchronous_commit=on" start >/dev/null
mkdir -p "$dir/sqlite"
echo "== SQLite (--data $dir/sqlite)"
"$build/tests/bench/load_bench" "${flags[@]}" --data "$dir/sqlite"
echo
echo "== PostgreSQL 15 (same machine, Unix socket)"
"$build/tests/bench/load_bench" "${flags[@]}" \
  --store "postgresql:///postgres?host=$dir&port=5432&user=postgres" --db-uid "$pg_uid"
