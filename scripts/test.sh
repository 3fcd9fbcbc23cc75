#!/usr/bin/env bash
# Builds Plateau and runs every test: unit, conformance, protocol, rooms, real sockets (ctest),
# then the browser tests in Debian's Chromium. PLATEAU_SANITIZE=1 does it all under ASan+UBSan
# in build-asan/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh" test
dir=$root/build
[ "${PLATEAU_SANITIZE:-0}" = 1 ] && dir=$root/build-asan
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
t0=$SECONDS
"$root/scripts/build.sh" "$dir"
t1=$SECONDS
(cd "$dir" && ctest --output-on-failure --parallel "$(nproc)" --timeout 600)
t2=$SECONDS
cd "$root/tests/e2e"
[ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund --loglevel=error
PLATEAU_SERVER="$dir/server/plateau-server" npm test
echo "test.sh: deps $t0 s, build $((t1 - t0)) s, ctest $((t2 - t1)) s, browser $((SECONDS - t2)) s"
