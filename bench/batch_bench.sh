#!/usr/bin/env bash
# On a GPU machine: `labgrade batch` against the same submissions graded one `labgrade grade` at a
# time. The class is N submissions of lab 01 taken in turn from a mix of what a class hands in:
# the solution (correct), bench/submissions/ (slow), the untouched skeleton and an off-by-one
# (wrong), an out-of-bounds write and an exit() mid-test (crashing), a kernel that never returns
# (hanging), a syntax error (not compiling), a forbidden header (refused) and a kernel on its own
# stream (caught by the timing checks). Prints both wall times, their ratio, submissions per hour,
# the batch's split between compile and test time, and every student whose correctness results
# differ between the two (there should be none; timed points may differ within their
# measurement's interval).
#
# With --sanitize, both sides grade with the sanitizer pass (labgrade batch/grade --sanitize).
# Every 2 s of the batch, the machine's CPU busy share (/proc/stat), the GPU's utilization, the
# processes holding a CUDA context (nvidia-smi, when present) and the compute-sanitizer instances
# go to OUT/load.txt, stamped like batch.log: whether the batch is bound by the CPUs, the GPU or
# neither (a wait), and how many contexts share the GPU meanwhile. Each sequential grade's wall
# time goes to OUT/sequential/times.txt as it ends, so a run cut short still says how far it got.
# The batch's timeline follows the figures: when each grade's long stages (build, correctness
# tests, sanitizer, deferred tests, tests alone) began and ended, from timing.stages of its report.
# Then each kind of submission's batch grades (status and points over its copies), also with
# --no-sequential, so that a batch-only run still shows whether every copy of a kind was graded alike.
# --leave-out KIND (repeatable; a kind as the class names it, e.g. never_returns) takes that kind
# out of the mix: what the rest of a class costs without it (both sides of the comparison).
#
#   bench/batch_bench.sh [--build-dir DIR] [--out DIR] [--jobs N] [--no-sequential] [--sanitize]
#                        [--leave-out KIND]... [N]   (default N: 50)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir="$root/build-gpu"
out_dir=""
jobs=()
sequential=1
sanitize=()
left_out=()
count=50
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --out) out_dir=$2; shift 2 ;;
    --jobs) jobs=(--jobs "$2"); shift 2 ;;
    --no-sequential) sequential=0; shift ;;
    --sanitize) sanitize=(--sanitize); shift ;;
    --leave-out) left_out+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    -*) echo "batch_bench.sh: unknown option $1" >&2; exit 2 ;;
    *) count=$1; shift ;;
  esac
done
labgrade="$build_dir/labgrade"
[ -x "$labgrade" ] || { echo "batch_bench.sh: no $labgrade: build first (cmake --build $build_dir)" >&2; exit 2; }
out_dir=${out_dir:-$(mktemp -d "${TMPDIR:-/tmp}/batch-bench.XXXXXX")}
mkdir -p "$out_dir/class" "$out_dir/sequential"

fixtures="$root/grader/tests/cli/submissions/01_vector_add"
sources=("$root/solutions/01_vector_add" "$root"/bench/submissions/01_vector_add/*/ "$root/labs/01_vector_add"
         "$fixtures/off_by_one" "$fixtures/out_of_bounds" "$fixtures/calls_exit" "$fixtures/never_returns"
         "$fixtures/syntax_error" "$fixtures/forbidden_header" "$fixtures/own_stream")
kind_of() {
  case $1 in
    "$root/solutions/"*) echo solution ;;
    "$root/labs/"*) echo skeleton ;;
    *) basename "$1" ;;
  esac
}
kept=()
for source in "${sources[@]}"; do
  source=${source%/}
  kind=$(kind_of "$source")
  for out in "${left_out[@]}"; do [ "$kind" = "$out" ] && continue 2; done
  kept+=("$source")
done
for out in "${left_out[@]}"; do
  found=0
  for source in "${sources[@]}"; do [ "$(kind_of "${source%/}")" = "$out" ] && found=1; done
  [ $found = 1 ] || { echo "batch_bench.sh: --leave-out $out: no such kind in the class" >&2; exit 2; }
done
[ ${#kept[@]} -gt 0 ] || { echo "batch_bench.sh: every kind was left out" >&2; exit 2; }
sources=("${kept[@]}")
for ((i = 0; i < count; i++)); do
  source=${sources[i % ${#sources[@]}]}
  kind=$(kind_of "$source")
  student=$(printf 's%03d_%s' "$i" "$kind")
  cp -r "$source" "$out_dir/class/$student"
done
echo "class of $count submissions in $out_dir/class"

now() { date +%s%N; }
seconds_since() { awk -v start="$1" -v end="$(now)" 'BEGIN { printf "%.1f", (end - start) / 1e9 }'; }
# Seconds since the start, the CPUs' busy share and the GPU's utilization over the last 2 s.
sample_load() {
  local prev cur idle total i gpu
  read -r -a prev < /proc/stat
  while sleep 2; do
    read -r -a cur < /proc/stat
    idle=$(( cur[4] + cur[5] - prev[4] - prev[5] )); total=0
    for i in 1 2 3 4 5 6 7 8; do total=$(( total + cur[i] - prev[i] )); done
    gpu=$(nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits 2>/dev/null | head -1 || true)
    # Processes with a CUDA context, and compute-sanitizer instances: whether a slow stretch is
    # many contexts time-slicing the GPU or many tool runs at once.
    contexts=$(nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | grep -c . || true)
    tools=$(pgrep -c -f "compute-sanitizer --tool" || true)
    printf '%7.1f cpu %3d%% gpu %s%% contexts %s tools %s\n' \
      "$(awk -v start="$1" -v end="$(now)" 'BEGIN { print (end - start) / 1e9 }')" \
      $(( 100 * (total - idle) / (total > 0 ? total : 1) )) "${gpu:--}" "${contexts:--}" "${tools:-0}"
    prev=("${cur[@]}")
  done
}

start=$(now)
sample_load "$start" >"$out_dir/load.txt" &
sampler=$!
trap 'kill $sampler 2>/dev/null || true' EXIT
# Each log line stamped with the seconds since the start, to show when the GPU-alone parts began.
{ "$labgrade" batch 01_vector_add "$out_dir/class" --out "$out_dir/batch" "${jobs[@]}" "${sanitize[@]}" 2>&1 ||
    echo "labgrade batch exited with code $?"; } |
  while IFS= read -r line; do
    printf '%7.1f %s\n' "$(awk -v start="$start" -v end="$(now)" 'BEGIN { print (end - start) / 1e9 }')" "$line"
  done >"$out_dir/batch.log"
grep -F "labgrade batch exited" "$out_dir/batch.log" || true
batch_seconds=$(seconds_since "$start")
kill $sampler 2>/dev/null || true
echo "batch: ${batch_seconds} s  (log: $out_dir/batch.log, load: $out_dir/load.txt, gradebook: $out_dir/batch/gradebook.csv)"

if [ "$sequential" = 1 ]; then
  start=$(now)
  # Each grade's wall time as it ends, so a run cut short still says how far it got.
  for dir in "$out_dir"/class/*/; do
    student=$(basename "$dir")
    one=$(now)
    "$labgrade" grade 01_vector_add --submission "$dir" "${sanitize[@]}" --json "$out_dir/sequential/$student.json" \
      >"$out_dir/sequential/$student.log" 2>&1 || true
    echo "$student $(seconds_since "$one") s (all so far: $(seconds_since "$start") s)" >>"$out_dir/sequential/times.txt"
  done
  sequential_seconds=$(seconds_since "$start")
  echo "sequential labgrade grade: ${sequential_seconds} s"
  awk -v s="$sequential_seconds" -v b="$batch_seconds" 'BEGIN { printf "speed-up: %.2fx\n", s / b }'
fi

python3 - "$out_dir" "$batch_seconds" "$sequential" <<'PY'
import json, os, sqlite3, sys
out, batch_seconds, sequential = sys.argv[1], float(sys.argv[2]), sys.argv[3] == "1"
db = sqlite3.connect(os.path.join(out, "batch", "results.sqlite"))
rows = db.execute("SELECT student_id, status, total, build_seconds, test_seconds, total_seconds FROM submissions").fetchall()
print(f"submissions per hour (batch): {len(rows) / batch_seconds * 3600:.0f}")
print(f"batch split, summed over submissions: compile {sum(r[3] for r in rows):.0f} s, tests {sum(r[4] for r in rows):.0f} s,"
      f" whole grades {sum(r[5] for r in rows):.0f} s (they overlap: compilation runs in parallel)")
# When each grade's long stages ran (timing.stages in its report), in seconds since the batch's
# first stage began: what a grade waited for, and what ran beside a hang.
stages = {}
for student, *_ in rows:
    path = os.path.join(out, "batch", "reports", student, "report.json")
    if os.path.exists(path):
        stages[student] = json.load(open(path))["timing"].get("stages", [])
starts = [s["started_at"] for each in stages.values() for s in each]
if starts:
    origin = min(starts)
    print("batch timeline (stage start-end, s since the first stage; stages under 0.5 s left out):")
    for student in sorted(stages):
        spans = [f"{s['stage']} {s['started_at'] - origin:.1f}-{s['started_at'] - origin + s['seconds']:.1f}"
                 for s in stages[student] if s["seconds"] >= 0.5]
        print(f"  {student:28} " + "; ".join(spans))
    # What the class's wall time is made of: the first parts' end (a hang's spinning included),
    # and the second parts, one at a time, split into the timed cases' own seconds (what the
    # judges spent inside them, from each test's `seconds`) and the rest (starting and ending the
    # judge and its runners, re-runs of correctness tests alone): the two levers 3x needs.
    firsts = [s["started_at"] - origin + s["seconds"] for each in stages.values() for s in each
              if s["stage"] == "correctness tests"]
    # The first parts likewise: their correctness runs' seconds, and the tests' own among them (a
    # test that timed out or was run again alone counts its last run only).
    seconds_alone, timed_inside, parts = 0.0, 0.0, 0
    seconds_shared, tests_inside = 0.0, 0.0
    for student in stages:
        report = json.load(open(os.path.join(out, "batch", "reports", student, "report.json")))
        tests = report.get("tests", [])
        shared = [s["seconds"] for s in stages[student] if s["stage"] == "correctness tests"]
        seconds_shared += sum(shared)
        if shared:
            tests_inside += sum(t.get("seconds", 0) for t in tests if not t["name"].startswith("Performance."))
        alone = [s["seconds"] for s in stages[student] if s["stage"] == "tests alone" and s["seconds"] >= 0.05]
        if not alone:
            continue
        parts += 1
        seconds_alone += sum(alone)
        timed_inside += sum(t.get("seconds", 0) for t in tests if t["name"].startswith("Performance."))
    if firsts:
        print(f"first parts end at {max(firsts):.1f} s; their correctness runs, summed: {seconds_shared:.1f} s, "
              f"inside the tests {tests_inside:.1f} s, outside them (waiting for a correctness slot, starting and ending "
              f"processes) {seconds_shared - tests_inside:.1f} s")
    # Tests a quiet harness left for later (likely hangs), run again after every first part.
    deferred = [(s["started_at"] - origin, s["started_at"] - origin + s["seconds"])
                for each in stages.values() for s in each if s["stage"] == "deferred tests"]
    if deferred:
        print(f"{len(deferred)} grades' deferred tests run {min(b for b, _ in deferred):.1f}-"
              f"{max(e for _, e in deferred):.1f} s")
    if parts:
        print(f"{parts} second parts take {seconds_alone:.1f} s ({seconds_alone / parts:.2f} s each): the timed cases "
              f"themselves {timed_inside:.1f} s, starting and ending processes and tests run again alone "
              f"{seconds_alone - timed_inside:.1f} s")
# Each kind of submission's batch grades (the student id less its sNNN_ prefix), so that a run
# with --no-sequential still says whether every copy of a kind got the grade it should.
by_kind = {}
for student, status, total, *_ in rows:
    by_kind.setdefault(student.split("_", 1)[-1], []).append((status, total))
summary = []
for kind, grades in sorted(by_kind.items()):
    statuses = sorted({status for status, _ in grades})
    totals = [total for _, total in grades if total is not None]
    points = "-" if not totals else (f"{min(totals):g}" if min(totals) == max(totals) else f"{min(totals):g}-{max(totals):g}")
    summary.append(f"{kind} {'/'.join(statuses)} {points} (x{len(grades)})")
print("batch grades by kind: " + "; ".join(summary))
if not sequential:
    sys.exit(0)
differ = 0
for student, status, total, *_ in rows:
    path = os.path.join(out, "sequential", student + ".json")
    if not os.path.exists(path):
        print(f"  {student}: no sequential report"); differ += 1; continue
    seq = json.load(open(path))
    batch_tests = dict(db.execute("SELECT test_name, status FROM test_results WHERE student_id = ? AND timed = 0",
                                  (student,)).fetchall())
    seq_tests = {t["name"]: t["status"] for t in seq["tests"] if not t["name"].startswith("Performance.")}
    if batch_tests != seq_tests:
        differ += 1
        changed = sorted(n for n in set(batch_tests) | set(seq_tests) if batch_tests.get(n) != seq_tests.get(n))
        print(f"  {student}: correctness differs in {', '.join(changed)}")
    print(f"  {student:32} batch {status:15} {total if total is not None else '-':>7}   sequential {seq['status']:15} {'-' if seq.get('points_earned') is None else format(seq['points_earned'], '.2f'):>7}")
print(f"students whose correctness results differ: {differ}")
PY
