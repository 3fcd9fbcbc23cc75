#!/usr/bin/env bash
# Checks check_rule_tables.sh itself on small made-up pages: it passes a table whose tests all
# exist, and fails, naming the line, a table that names a missing test or gives no reason.
set -euo pipefail
check="$(cd "$(dirname "$0")" && pwd)/check_rule_tables.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/tests"
cat >"$dir/tests/some_test.cpp" <<'CPP'
TEST(Game, SentenceOneHolds) {}
  TEST_F(Fixture, SentenceTwoHolds) {}
TEST_P(Conformance, EveryGameHoldsThis) {}
CPP
page() {
  printf '%s\n' '# A game' '' '## Every rule sentence and its test' '' \
    '| # | source | sentence | checked by |' '|---|---|---|---|' "$@" '' '## Later' '| a | b |'
}
page '| 1 | fr | One. | `Game.SentenceOneHolds` |' \
     '| 2 | fr | Two. | `Fixture.SentenceTwoHolds`, `Conformance.EveryGameHoldsThis` |' \
     '| 3 | fr | Once upon a time. | none: flavour text |' >"$dir/good.md"
page '| 1 | fr | One. | `Game.SentenceOneHolds` |' \
     '| 2 | fr | Two. | `Game.NoSuchTestAnywhere` |' >"$dir/missing.md"
page '| 1 | fr | One. |  |' >"$dir/no_reason.md"
printf '# A game without a table\n' >"$dir/no_table.md"

fail=0
expect() {  # expect pass|fail PAGE [TEXT]: the check's verdict on PAGE, and TEXT in what it says
  local want=$1 file=$2 text=${3:-} out rc=0
  out=$("$check" --tests "$dir/tests" "$dir/$file" 2>&1) || rc=$?
  if { [ "$want" = pass ] && [ $rc -ne 0 ]; } || { [ "$want" = fail ] && [ $rc -eq 0 ]; }; then
    echo "FAIL: $file: expected the check to $want, it exited $rc: $out"
    fail=1
  elif [ -n "$text" ] && ! grep -qF -- "$text" <<<"$out"; then
    echo "FAIL: $file: expected \"$text\" in: $out"
    fail=1
  else
    echo "ok: $file ($want)"
  fi
}
expect pass good.md "3 sentences, 3 test names"
expect fail missing.md "missing.md:8: no test named Game.NoSuchTestAnywhere"
expect fail no_reason.md "no_reason.md:7: the row names no test and gives no reason"
expect fail no_table.md "no section"
exit $fail
