#!/usr/bin/env bash
# Checks the rule tables of the games' rules pages (rules/<game>/RULES.md, section "## Every rule
# sentence and its test"): each row's last cell names the GoogleTest tests that check its
# sentence, as `Suite.Name` in backquotes, or says why none is needed ("none: flavour text").
# Fails, naming file and line, if a row names a test that no TEST, TEST_F or TEST_P under the
# tests folder defines, if a row names no test and gives no reason, or if a page has no table.
#
#   check_rule_tables.sh [--tests DIR] [RULES.md ...]
#
# Defaults: the tests folder and the RULES.md of every game folder (rules/*/ with a
# CMakeLists.txt) of the checkout holding this script.
# Plain bash, grep and sed, so that it runs wherever the tests are built (the Docker build too).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tests_dir=$root/tests
if [ "${1:-}" = --tests ]; then
  tests_dir=$2
  shift 2
fi
pages=("$@")
if [ ${#pages[@]} -eq 0 ]; then
  for game in "$root"/rules/*/; do
    # A game's folder is one that builds (rules/texts/ holds the source texts, not a game), and
    # every game's folder has a RULES.md.
    [ -f "${game}CMakeLists.txt" ] && pages+=("${game}RULES.md")
  done
fi
heading='## Every rule sentence and its test'

# Every test the sources define, one Suite.Name a line.
defined=$(grep -rhoE --include='*.cpp' --include='*.hpp' --include='*.h' --include='*.cc' \
            '^[[:space:]]*TEST(_F|_P)?\([[:space:]]*[A-Za-z_][A-Za-z0-9_]*[[:space:]]*,[[:space:]]*[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\)' \
            "$tests_dir" | sed -E 's/^[[:space:]]*TEST(_F|_P)?\([[:space:]]*([A-Za-z0-9_]+)[[:space:]]*,[[:space:]]*([A-Za-z0-9_]+).*/\2.\3/' |
          sort -u || true)
if [ -z "$defined" ]; then
  echo "check_rule_tables: no TEST, TEST_F or TEST_P found under $tests_dir" >&2
  exit 1
fi
declare -A is_defined
while IFS= read -r name; do is_defined[$name]=1; done <<<"$defined"

problems=0
rows_total=0
names_total=0
problem() {
  echo "$1" >&2
  problems=$((problems + 1))
}

for page in "${pages[@]}"; do
  if [ ! -f "$page" ]; then
    problem "$page: no such file"
    continue
  fi
  if ! grep -qxF "$heading" "$page"; then
    problem "$page: no section \"$heading\""
    continue
  fi
  in_table=0
  header=0
  rows=0
  line_no=0
  while IFS= read -r line || [ -n "$line" ]; do
    line_no=$((line_no + 1))
    if [ "$line" = "$heading" ]; then
      in_table=1
      continue
    fi
    [ $in_table = 1 ] || continue
    case $line in
      '## '*) break ;;    # the next section
      '|'*) ;;
      *) continue ;;
    esac
    # The header row and the separator row are not sentences.
    case $line in
      '|---'* | '| ---'* | '|:--'*) continue ;;
    esac
    if [ $header = 0 ]; then
      header=1
      continue
    fi
    rows=$((rows + 1))
    # The last cell: what follows the last-but-one bar.
    trimmed=${line%|}
    trimmed=${trimmed%"${trimmed##*[![:space:]]}"}
    trimmed=${trimmed%|}
    cell=${trimmed##*|}
    # The `Suite.Name` words of the cell, found without a process per row (the tables are long).
    names=()
    rest=$cell
    while [[ $rest =~ \`([A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*)\` ]]; do
      names+=("${BASH_REMATCH[1]}")
      rest=${rest#*"${BASH_REMATCH[0]}"}
    done
    if [ ${#names[@]} -eq 0 ]; then
      if ! [[ $cell =~ ^[[:space:]]*none:[[:space:]]*[^[:space:]] ]]; then
        problem "$page:$line_no: the row names no test and gives no reason (\"none: why\")"
      fi
      continue
    fi
    for name in "${names[@]}"; do
      names_total=$((names_total + 1))
      if [ -z "${is_defined[$name]:-}" ]; then
        problem "$page:$line_no: no test named $name under $tests_dir"
      fi
    done
  done <"$page"
  if [ $rows = 0 ]; then
    problem "$page: the table under \"$heading\" has no rows"
  fi
  rows_total=$((rows_total + rows))
done

if [ $problems -gt 0 ]; then
  echo "check_rule_tables: $problems problem(s) in ${#pages[@]} page(s)" >&2
  exit 1
fi
echo "check_rule_tables: ${#pages[@]} pages, $rows_total sentences, $names_total test names, all defined"
