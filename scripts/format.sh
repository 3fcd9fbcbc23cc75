#!/usr/bin/env bash
# Formats every C++ file of the tree with clang-format 19 (.clang-format). --check changes nothing
# and exits non-zero, listing the files, when any is not formatted (CI runs that).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
command -v clang-format-19 >/dev/null 2>&1 || "$root/scripts/deps.sh" test
cd "$root"
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' | grep -v '^tests/fuzz/corpus/')
if [ "${1:-}" = --check ]; then
  bad=()
  for f in "${files[@]}"; do clang-format-19 --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f"); done
  if [ ${#bad[@]} -gt 0 ]; then
    printf 'not formatted: %s\n' "${bad[@]}" >&2
    echo "format: run scripts/format.sh" >&2
    exit 1
  fi
  echo "format: ${#files[@]} files formatted"
else
  clang-format-19 -i "${files[@]}"
fi
