#!/usr/bin/env bash
# The store's cost, side by side (issue 47): load_bench's many-room phase on the embedded SQLite
# store, then on a throwaway PostgreSQL 15 on this machine (a Unix socket in a private folder,
# fsync on, synchronous_commit on: a move durable before it is shown, as with SQLite). The first
# two runs of cluster_compare.sh, which sets both up. By hand, never in CI.
#
#   tests/bench/store_compare.sh [BUILD_DIR] [load_bench flags...]   (default: build, --rooms 200)
PHASES="sqlite postgres" exec "$(dirname "$0")/cluster_compare.sh" "$@"
