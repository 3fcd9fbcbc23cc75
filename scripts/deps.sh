#!/usr/bin/env bash
# Installs what Plateau needs from Debian 12's packages, only if something is missing.
#   deps.sh build   the compiler, CMake and libraries
#   deps.sh test    the same, plus PostgreSQL 15 and Redis 7 (the cluster's tests start their
#                   own servers), HAProxy (proxy_test runs one in front of a server), Chromium and Node.js for the browser tests, and clang 19 with
#                   libFuzzer for scripts/fuzz.sh, clang-tidy and clang-format 19
set -euo pipefail
want=(g++ cmake ninja-build ccache pkg-config libboost-dev nlohmann-json3-dev libspdlog-dev libfmt-dev
      libsqlite3-dev libpq-dev libsodium-dev libssl-dev libjemalloc-dev openssl libgtest-dev sqlite3 curl ca-certificates)
if [ "${1:-build}" = test ]; then
  want+=(postgresql-15 redis-server haproxy chromium clang-19 libclang-rt-19-dev clang-tidy-19 clang-format-19)
  command -v node >/dev/null 2>&1 || want+=(nodejs)
  command -v npm >/dev/null 2>&1 || want+=(npm)
fi
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
