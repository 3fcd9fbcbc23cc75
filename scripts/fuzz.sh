#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang, ASan and UBSan into build-fuzz/, then runs
# each for SECONDS (default 60, what CI runs; as many targets at once as there are cores) from a
# fresh copy of its seed corpus, so the repo's corpus is never written to. Prints each target's
# executions and crashes, and exits non-zero when any target crashed. A crash's input is kept in build-fuzz/run/<target>/findings/; replay it with
#   build-fuzz/tests/fuzz/<target> build-fuzz/run/<target>/findings/crash-...
# A longer run by hand: scripts/fuzz.sh 3600. Only some targets: FUZZ_TARGETS="fuzz_moves" scripts/fuzz.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
dir=$root/build-fuzz
all=(fuzz_protocol fuzz_moves fuzz_state_load fuzz_http_target)
read -r -a targets <<<"${FUZZ_TARGETS:-${all[*]}}"
"$root/scripts/deps.sh" test
# Debian 12's clang 14 cannot compile libstdc++ 12's std::expected (it lacks C++20's conditionally
# trivial destructors); clang 19, from the same release, can.
cxx=${FUZZ_CXX:-clang++-19}
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
    -DPLATEAU_FUZZ=ON -DPLATEAU_TESTS=OFF >/dev/null
fi
cmake --build "$dir" --parallel "$(nproc)" --target "${targets[@]}"

# Stack traces with function names and lines.
symbolizer=$(command -v llvm-symbolizer-19 || command -v llvm-symbolizer || true)
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$symbolizer}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# One target: a fresh copy of its seed corpus, SECONDS of fuzzing, a line of figures; on a crash,
# the end of its log and the inputs kept. Prints into $work/report, exits 1 when it crashed.
run_target() {
  local t=$1 work=$dir/run/$1 rc=0
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/findings"
  cp -R "$root/tests/fuzz/corpus/$t/." "$work/corpus/"
  # -timeout: one input running this long is a hang, kept like a crash.
  (cd "$work" && "$dir/tests/fuzz/$t" corpus -max_total_time="$seconds" -timeout=30 -max_len=8192 \
     -print_final_stats=1 -artifact_prefix="$work/findings/" >log 2>&1) || rc=$?
  local execs rate crashes
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -n 1)
  crashes=$(find "$work/findings" -type f | wc -l)
  {
    printf '%-18s %10s executions in %s s (%s/s), %s crashes, corpus %s -> %s inputs\n' "$t" "${execs:-?}" \
      "$seconds" "${rate:-?}" "$crashes" "$(find "$root/tests/fuzz/corpus/$t" -type f | wc -l)" \
      "$(find "$work/corpus" -type f | wc -l)"
    if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
      echo "---- $t failed (exit $rc); the end of its log ($work/log):"
      tail -n 60 "$work/log"
      find "$work/findings" -type f -printf '  kept: %p\n'
    fi
  } >"$dir/run/$t.report"
  [ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ]
}

# Each target is one process on one core: as many run at once as there are cores, so CI's
# fuzzing takes SECONDS per batch rather than per target. Reports print in the targets' order.
mkdir -p "$dir/run"
jobs_max=$(nproc)
declare -A pid_of=()
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  run_target "$t" &
  pid_of[$t]=$!
done
passed=0 failed=0
for t in "${targets[@]}"; do
  if wait "${pid_of[$t]}"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  cat "$dir/run/$t.report"
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
