#!/bin/sh
# PrairieLearn external-grader entry point: grades /grade/student with `labgrade grade` and leaves
# PrairieLearn's /grade/results/results.json (README.md, "PrairieLearn"). In the question's
# info.json: "entrypoint": "/cudalabs/grader/prairielearn/grade.sh 01_vector_add".
#
#   grade.sh LAB
#
# LABGRADE (default: build/labgrade of this tree), GRADE_DIR (default: /grade) may be set.
# labgrade writes results.json itself for every run it gets to report on: a grade ("gradable":
# true, score in [0, 1]) or a run that is not one ("gradable": false: no CUDA device). When it
# ends before any report (bad arguments, a broken build tree: exit codes 2, 3 and 7), this script
# writes a "gradable": false results.json saying so, so that PrairieLearn never reads a grader
# failure as the student's 0. Always exits 0: the result is in the file.
set -u
lab="${1:-}"
here=$(cd "$(dirname "$0")" && pwd)
labgrade="${LABGRADE:-$here/../../build/labgrade}"
grade_dir="${GRADE_DIR:-/grade}"
results="$grade_dir/results"
mkdir -p "$results"
rm -f "$results/results.json"

code=0
if [ -z "$lab" ]; then
  echo "grade.sh: which lab? usage: grade.sh LAB (e.g. grade.sh 01_vector_add)" >&2
  code=2
else
  # The full text report goes to the job's stdout (instructors see it in PrairieLearn's logs).
  "$labgrade" grade "$lab" --submission "$grade_dir/student" --prairielearn "$results/results.json" 2>&1
  code=$?
fi

if [ ! -s "$results/results.json" ]; then
  cat > "$results/results.json" <<JSON
{
  "gradable": false,
  "format_errors": ["the grader itself failed (labgrade exit code $code): this was not a grade and costs no attempt; tell your instructor"],
  "message": "the grader itself failed (labgrade exit code $code)"
}
JSON
fi
exit 0
