#!/usr/bin/env bash
# Runs clang-tidy 19 (.clang-tidy's checks) on every source the server and the CLI are built from,
# using build/compile_commands.json (scripts/build.sh makes it). Exits non-zero on any finding.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
command -v clang-tidy-19 >/dev/null 2>&1 || "$root/scripts/deps.sh" test
[ -f "$dir/compile_commands.json" ] || "$root/scripts/build.sh" "$dir"
cd "$root"
mapfile -t files < <(git ls-files 'rules/*.cpp' 'protocol/*.cpp' 'server/*.cpp' 'bots/*.cpp' 'clients/cli/*.cpp')
# GCC-only flags in the compile commands are unknown to clang: tell it to ignore them.
run-clang-tidy-19 -quiet -p "$dir" -j "$(nproc)" -extra-arg=-Wno-unknown-warning-option \
  -extra-arg=-Wno-unused-command-line-argument "${files[@]}" >"$dir/tidy.log" 2>&1 || {
  grep -E 'warning:|error:' "$dir/tidy.log" | sort -u | head -50
  echo "tidy: findings above (whole log: $dir/tidy.log)" >&2
  exit 1
}
echo "tidy: ${#files[@]} files, no findings"
