#!/bin/sh
# grader/prairielearn/grade.sh, PrairieLearn's entry point: what labgrade writes is passed on as it
# is; when labgrade ends before writing it (here: an unknown lab, exit code 2), a "gradable": false
# results.json stands in, never a score. Usage: prairielearn_entrypoint_test.sh GRADE_SH LABGRADE
set -u
grade_sh="$1"
labgrade="$2"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/prairielearn-entrypoint-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. labgrade writes results.json: passed on untouched, and the script exits 0.
mkdir -p "$scratch/one/student" "$scratch/bin"
cat > "$scratch/bin/fake_labgrade" <<'FAKE'
#!/bin/sh
# Writes the file after --prairielearn, as labgrade does; records its arguments.
echo "$@" > "$(dirname "$0")/args"
while [ $# -gt 0 ]; do
  if [ "$1" = "--prairielearn" ]; then printf '{"gradable": true, "score": 0.5}\n' > "$2"; fi
  shift
done
echo "Score: 50 / 100"
exit 0
FAKE
chmod +x "$scratch/bin/fake_labgrade"
LABGRADE="$scratch/bin/fake_labgrade" GRADE_DIR="$scratch/one" sh "$grade_sh" 01_vector_add > "$scratch/one.log" 2>&1 ||
  fail "the entry point exited $?"
[ "$(cat "$scratch/one/results/results.json")" = '{"gradable": true, "score": 0.5}' ] ||
  fail "labgrade's results.json was not passed on: $(cat "$scratch/one/results/results.json")"
grep -q -- "grade 01_vector_add --submission $scratch/one/student --prairielearn $scratch/one/results/results.json" \
  "$scratch/bin/args" || fail "labgrade was run as: $(cat "$scratch/bin/args")"
grep -q "Score: 50 / 100" "$scratch/one.log" || fail "labgrade's text report is not on the job's output"

# 2. labgrade ends before any report (the real one, an unknown lab): not gradable, never a 0.
mkdir -p "$scratch/two/student" "$scratch/two/results"
echo '{"score": 1}' > "$scratch/two/results/results.json"  # an old file must not survive
LABGRADE="$labgrade" GRADE_DIR="$scratch/two" sh "$grade_sh" 99_no_such_lab > "$scratch/two.log" 2>&1 ||
  fail "the entry point exited $?"
results="$scratch/two/results/results.json"
grep -q '"gradable": false' "$results" || fail "not marked as not gradable: $(cat "$results")"
grep -q '"score"' "$results" && fail "a score where there is no grade: $(cat "$results")"
grep -q 'labgrade exit code 2' "$results" || fail "labgrade's exit code is not given: $(cat "$results")"
if command -v python3 > /dev/null 2>&1; then
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["gradable"] is False and all(isinstance(e,str) for e in r["format_errors"])' \
    "$results" || fail "not valid JSON of the documented shape: $(cat "$results")"
fi

# 3. No lab given: the same.
mkdir -p "$scratch/three/student"
GRADE_DIR="$scratch/three" LABGRADE="$labgrade" sh "$grade_sh" > /dev/null 2>&1 || fail "the entry point exited $?"
grep -q '"gradable": false' "$scratch/three/results/results.json" || fail "no lab: not marked as not gradable"
echo "PASS"
