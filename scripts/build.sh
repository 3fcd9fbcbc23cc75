#!/usr/bin/env bash
# Configures and builds into DIR (default build/). PLATEAU_SANITIZE=1 adds ASan and UBSan.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
# ccache hits across clones in other folders (CI builds a fresh clone each time).
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
san=OFF
[ "${PLATEAU_SANITIZE:-0}" = 1 ] && san=ON
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
# A configure that failed (a missing package, since installed) leaves a cache but no build files:
# configure again then.
if [ ! -f "$dir/CMakeCache.txt" ] || { [ ! -f "$dir/build.ninja" ] && [ ! -f "$dir/Makefile" ]; }; then
  cmake -S "$root" -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPLATEAU_SANITIZE=$san >/dev/null
fi
if ! cmake --build "$dir" --parallel "$(nproc)"; then
  # A compiler killed for memory prints nothing of its own: say what the machine looked like,
  # then build once more a file at a time, which tells a real error (it fails again, with its
  # message) from a starved machine (it passes).
  echo "build: failed; memory and disk now:" >&2
  free -m >&2 || true
  df -h "$dir" >&2 || true
  (dmesg 2>/dev/null | tail -n 5) >&2 || true
  echo "build: once more, one job at a time" >&2
  cmake --build "$dir" --parallel 1
fi
