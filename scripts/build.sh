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
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPLATEAU_SANITIZE=$san >/dev/null
fi
cmake --build "$dir" --parallel "$(nproc)"
