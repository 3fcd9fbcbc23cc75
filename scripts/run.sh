#!/usr/bin/env bash
# Builds Plateau if needed and starts it on http://localhost:8080 with its store in ./data.
# Extra arguments go to the server (see: scripts/run.sh --help).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh" build
"$root/scripts/build.sh" "$root/build"
exec "$root/build/server/plateau-server" --data "${PLATEAU_DATA:-./data}" --web-root "$root/clients/web" "$@"
