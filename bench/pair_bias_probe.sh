#!/usr/bin/env bash
# On a GPU machine: does the bias that moves a grade's timed ratio (lab 01's solution, +-1.5% over
# ten grades) belong to the grade's runner pair or to its judge? Grades lab 01's solution G times
# (default 5) from a copy of the course whose vector_add_2to26 threshold (0.90x the reference's
# time) no correct kernel reaches in full, so that every grade measures that case again with new
# runner pairs (remeasure_attempts R, default 5: R + 1 pairs a grade), each with a timing trace.
# Prints every measurement's ratio grade by grade (bench/timing_trace_summary.py has the rest):
# if the pairs of one grade spread as widely as the grades do, the bias is the pair's, and a
# measurement pooled over pairs would average it down; if one grade's pairs agree while grades
# differ, it is the judge's. The grades' points mean nothing here (the threshold is made up).
#
#   bench/pair_bias_probe.sh [--build-dir DIR] [--out DIR] [--grades G] [--remeasures R]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir="$root/build-gpu"
out_dir=""
grades=5
remeasures=5
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --out) out_dir=$2; shift 2 ;;
    --grades) grades=$2; shift 2 ;;
    --remeasures) remeasures=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "pair_bias_probe.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
labgrade="$build_dir/labgrade"
[ -x "$labgrade" ] || { echo "pair_bias_probe.sh: no $labgrade: build first" >&2; exit 2; }
out_dir=${out_dir:-$(mktemp -d "${TMPDIR:-/tmp}/pair-bias.XXXXXX")}
mkdir -p "$out_dir"

# The course as it is, but for its config: the two settings the probe changes, in a copy.
course="$out_dir/course"
mkdir -p "$course"
for entry in "$root"/*; do
  [ "$(basename "$entry")" = config ] || ln -s "$entry" "$course/$(basename "$entry")"
done
cp -r "$root/config" "$course/config"
lab_yaml="$course/config/labs/01_vector_add.yaml"
course_yaml="$course/config/course.yaml"
grep -q "threshold: {max_ratio_to_solution: 1.10}" "$lab_yaml" ||
  { echo "pair_bias_probe.sh: $lab_yaml no longer says max_ratio_to_solution: 1.10; update this probe" >&2; exit 2; }
sed -i "s/threshold: {max_ratio_to_solution: 1.10}/threshold: {max_ratio_to_solution: 0.90}/" "$lab_yaml"
grep -q "^  remeasure_attempts:" "$course_yaml" ||
  { echo "pair_bias_probe.sh: $course_yaml has no timing.remeasure_attempts; update this probe" >&2; exit 2; }
sed -i "s/^  remeasure_attempts: .*/  remeasure_attempts: $remeasures/" "$course_yaml"

for ((g = 1; g <= grades; g++)); do
  trace="$out_dir/trace_$g.txt"
  CUDALABS_TIMING_TRACE="$trace" "$labgrade" --root "$course" grade 01_vector_add \
    --submission "$root/solutions/01_vector_add" --json "$out_dir/grade_$g.json" > "$out_dir/grade_$g.txt" 2>&1 || true
  if [ ! -s "$trace" ]; then
    echo "grade $g: nothing was timed (no trace; $out_dir/grade_$g.txt says why: $(grep -m1 -Ei "not a grade|error" "$out_dir/grade_$g.txt" || true))"
    continue
  fi
  # One line per measurement (a `# warm-up` line opens each): its median ratio of the rounds kept.
  ratios=$(python3 "$root/bench/timing_trace_summary.py" "$trace" | grep -Eo "ratio: median [0-9.]+" | awk '{print $3}' | tr '\n' ' ' || true)
  echo "grade $g: measurements' ratios (in order, both cases): $ratios"
done
echo "traces and reports in $out_dir"
