#!/usr/bin/env bash
# On the GPU machine: build (one architecture, all cores), then the GPU checks named on the command
# line, each step's log under gpu-logs/ (packed into $OUT/logs.tgz when $OUT is set). Steps: common (GPU tests of common/), grades (each
# lab's solution graded one at a time, its grading time against bench/grade_time_bounds.py's bounds, and all back to back), cli (every-lab, fixtures, adversarial),
# ctest (the whole suite with -j4, or the tests CTEST_FILTER matches), bench (each lab's benchmark), noise (lab 01's solution graded
# NOISE_GRADES times, default 10: the spread of each timed case's ratio to the reference, which
# must stay within +-1%; noise-ungated the same with gated timing windows off, for comparison).
#
#   bench/verify_on_gpu.sh [--arch 90] step...
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$root/gpu-logs
arch=90
if [ "${1:-}" = --arch ]; then arch=$2; shift 2; fi
mkdir -p "$out"
build="$root/build-gpu"
labs=()
for file in "$root"/config/labs/*.yaml; do labs+=("$(basename "$file" .yaml)"); done

start=$SECONDS
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" >"$out/configure.log" 2>&1 ||
  { tail -30 "$out/configure.log"; exit 1; }
if ! cmake --build "$build" -j"$(nproc)" >"$out/build.log" 2>&1; then
  grep -E "error" "$out/build.log" | head -30
  [ -n "${OUT:-}" ] && cp "$out/build.log" "$OUT/"
  exit 1
fi
echo "build: $((SECONDS - start)) s"

status=0
for step in "$@"; do
  start=$SECONDS
  case "$step" in
    common)
      "$build/common/tests/cudalabs_common_tests" >"$out/common.log" 2>&1 || status=1
      grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]" "$out/common.log" | head -20 ;;
    grades)
      for lab in "${labs[@]}"; do
        "$build/labgrade" grade "$lab" --submission "$root/solutions/$lab" --json "$out/grade_$lab.json" >"$out/grade_$lab.txt" 2>&1
        echo "$lab: exit $?, $(grep -E 'points|Time:' "$out/grade_$lab.txt" | grep -E '^Score|Time:|^  *[0-9.]+ / [0-9.]+ *points' | head -2 | tr -s ' ' | tr '\n' ' ')"
      done
      python3 "$root/bench/grade_time_bounds.py" "$out"/grade_*.json || status=1
      all=$SECONDS
      for lab in "${labs[@]}"; do "$build/labgrade" grade "$lab" --submission "$root/solutions/$lab" >/dev/null 2>&1; done
      echo "all ${#labs[@]} labs back to back: $((SECONDS - all)) s" ;;
    cli)
      # CLI_FILTER narrows the run (the whole binary takes longer than one device command may).
      "$build/grader/tests/cli/labgrade_cli_tests" --gtest_filter="${CLI_FILTER:-*}" >"$out/cli.log" 2>&1 || status=1
      grep -E "^\[ +(time|grade)|FAILED|Failure|Expected|Which is|^\[  PASSED" "$out/cli.log" | head -120 ;;
    ctest)
      # CTEST_FILTER (a ctest -R regex) splits the suite over device commands: its GPU tests take
      # about ten minutes under -j4 on the H100, LabFixture half of it.
      ctest --test-dir "$build" -j4 --output-on-failure ${CTEST_FILTER:+-R "$CTEST_FILTER"} >"$out/ctest.log" 2>&1 || status=1
      grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)" "$out/ctest.log" | head -40 ;;
    noise|noise-ungated)
      # noise-ungated: the same with gated timing windows off (CUDALABS_GATED_WINDOWS=0), windows
      # timed from each call's request to its reply as before the gate, for a side-by-side figure.
      gated=1
      [ "$step" = noise-ungated ] && gated=0
      for i in $(seq "${NOISE_GRADES:-10}"); do
        CUDALABS_GATED_WINDOWS=$gated "$build/labgrade" grade 01_vector_add --submission "$root/solutions/01_vector_add" \
          --json "$out/${step}_$i.json" >"$out/${step}_$i.txt" 2>&1 || status=1
      done
      python3 - "$step" "$out/${step}"_*.json <<'PY'
import json, sys
ratios, seconds = {}, []
for path in sys.argv[2:]:
    report = json.load(open(path))
    seconds.append(report["timing"]["total_seconds"])
    for test in report["tests"]:
        figure = (test.get("performance") or {}).get("ratio", {}).get("median")
        if figure: ratios.setdefault(test["name"], []).append(figure)
for name, values in sorted(ratios.items()):
    print(f"{sys.argv[1]} {name}: {len(values)} grades, ratio {min(values):.4f}-{max(values):.4f}, "
          f"spread +-{100 * (max(values) - min(values)) / 2:.2f}%")
print(f"{sys.argv[1]}: grades {min(seconds):.2f}-{max(seconds):.2f} s")
PY
      ;;
    bench)
      for lab in "${labs[@]}"; do
        [ -x "$build/bench/bench_$lab" ] || continue
        "$build/bench/bench_$lab" >"$out/bench_$lab.log" 2>&1 || status=1
        tail -12 "$out/bench_$lab.log"
      done ;;
    *) echo "unknown step $step"; status=2 ;;
  esac
  echo "step $step: $((SECONDS - start)) s"
done
[ -n "${OUT:-}" ] && tar czf "$OUT/logs.tgz" -C "$root" gpu-logs
exit "$status"
