#!/usr/bin/env bash
# On a GPU machine: build, then run what only a GPU can check for the given labs (default: all):
# each lab's benchmark (reference against the baseline its YAML names (reference_targets)) and the end-to-end grades
# of its solution, its untouched skeleton and its fixtures (grader/tests/cli/every_lab_test.cpp).
# Logs go to the output directory, one file per step, so a long run can be read piece by piece.
#
#   bench/run_on_gpu.sh [--build-dir DIR] [--out DIR] [--no-grades] [--no-bench] [lab ...]
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir="$root/build-gpu"
out_dir="$root/build-gpu/gpu-logs"
grades=1
bench=1
labs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --out) out_dir=$2; shift 2 ;;
    --no-grades) grades=0; shift ;;
    --no-bench) bench=0; shift ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    -*) echo "run_on_gpu.sh: unknown option $1" >&2; exit 2 ;;
    *) labs+=("$1"); shift ;;
  esac
done
if [ ${#labs[@]} -eq 0 ]; then
  for file in "$root"/config/labs/*.yaml; do labs+=("$(basename "$file" .yaml)"); done
fi
mkdir -p "$out_dir"

# Configure once (the default preset's settings, this machine's GPU), then build only what the
# chosen labs need.
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release ${CUDALABS_CMAKE_ARGS:-} >"$out_dir/configure.log" 2>&1 ||
    { tail -30 "$out_dir/configure.log"; exit 1; }
fi
targets=(labgrade labgrade_cli_tests)
for lab in "${labs[@]}"; do
  targets+=("lab_${lab}_grade" "lab_${lab}_selfcheck")
  [ -f "$root/bench/labs/${lab}_bench.cu" ] && targets+=("bench_${lab}")
done
start=$(date +%s)
if ! cmake --build "$build_dir" -j"$(nproc)" --target "${targets[@]}" >"$out_dir/build.log" 2>&1; then
  grep -E "error|Error" "$out_dir/build.log" | head -40
  exit 1
fi
echo "build: $(( $(date +%s) - start )) s"

status=0
if [ "$bench" = 1 ]; then
  for lab in "${labs[@]}"; do
    [ -x "$build_dir/bench/bench_${lab}" ] || continue
    start=$(date +%s)
    "$build_dir/bench/bench_${lab}" >"$out_dir/bench_${lab}.log" 2>&1
    code=$?
    echo "bench_${lab}: exit ${code}, $(( $(date +%s) - start )) s"
    tail -25 "$out_dir/bench_${lab}.log"
    [ "$code" = 0 ] || status=1
  done
fi

if [ "$grades" = 1 ]; then
  filter=""
  for lab in "${labs[@]}"; do filter+="${filter:+:}*lab${lab}*:*${lab}_*"; done
  start=$(date +%s)
  # Test names: Labs/EveryLab.<check>/lab<id>, Fixtures/LabFixture.<check>/<id>_<fixture>.
  "$build_dir/grader/tests/cli/labgrade_cli_tests" --gtest_filter="$filter" >"$out_dir/grades.log" 2>&1
  code=$?
  echo "grades: exit ${code}, $(( $(date +%s) - start )) s"
  grep -E "^\[ grade|^    |OK \]|FAILED|Failure|Expected|Which is" "$out_dir/grades.log" | head -150
  [ "$code" = 0 ] || status=1
fi
exit "$status"
