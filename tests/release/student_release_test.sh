#!/usr/bin/env bash
# The student release, end to end, without a GPU or with one:
#   1. `labgrade release` writes it (every lab); it is then copied elsewhere, so nothing can lean
#      on where it was generated, and configured and built there on its own (labgrade and lab
#      01 only, to keep the test short);
#   2. neither its CMake cache nor its compile commands name the instructor tree;
#   3. its labgrade has the student commands only (no grade, no release);
#   4. `labgrade check 01_vector_add` on the skeleton compiles it, then ends with exit code 5 (no
#      CUDA device) or, on a GPU machine, 1 with the TODOs left named;
#   5. `labgrade submit` packs exactly vector_add.cu, with the checksum it prints;
#   6. no solution source, hidden suite, grader test or benchmark is in it, and no string that
#      only those files or the hidden YAML entries hold (hidden test and case names, solution
#      kernel names, of every lab) appears anywhere in it;
#   7. lab 01's timing previews come with their thresholds (and no hidden case's threshold), and
#      the self-check report shows them: skipped without a GPU, measured with one.
# Usage: student_release_test.sh LABGRADE COURSE_ROOT CUDA_COMPILER CUDA_ARCHITECTURES
set -euo pipefail

labgrade=$1 root=$2 nvcc=$3 archs=$4
lab=01_vector_add
scratch=$(mktemp -d "${TMPDIR:-/tmp}/cudalabs-release-test-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

step "generate"
"$labgrade" --root "$root" release --out "$scratch/generated"
mkdir -p "$scratch/not-empty" && touch "$scratch/not-empty/keep"
if "$labgrade" --root "$root" release --out "$scratch/not-empty" --labs "$lab" 2>/dev/null; then
  fail "release wrote into a folder that was not empty"
fi
[[ -f "$scratch/not-empty/keep" && $(ls "$scratch/not-empty" | wc -l) == 1 ]] || fail "release touched a non-empty folder"
cp -a "$scratch/generated" "$scratch/release"
rm -rf "$scratch/generated"
release=$scratch/release

step "what is kept back"
for kept_back in solutions grader/suites grader/tests grader/src/batch grader/src/serve cmake/CudalabsFindSQLite3.cmake bench tests \
    course/tests common/tests cudalabs; do
  [[ ! -e "$release/$kept_back" ]] || fail "the release holds $kept_back"
done
! grep -rn "visibility: hidden" "$release/config" || fail "the release's YAML lists a hidden entry"
# Strings only the instructor's hidden files hold: hidden test and case names from the YAML, and
# the solution's kernel names, each kept only if no public file of the instructor tree has it.
hidden_only_strings() {
  local lab=$1 name
  { grep -E "visibility: hidden" "$root/config/labs/$lab.yaml" | sed -nE 's/.*name: *([A-Za-z0-9_.]+).*/\1/p'
    awk '/^ *- name:/ {name=$3} /visibility: hidden/ && name {print name; name=""}' "$root/config/labs/$lab.yaml"
    sed -nE 's/^__global__ void ([A-Za-z0-9_]+).*/\1/p' "$root"/solutions/"$lab"/*.cu
    sed -nE 's/^TEST(_F)?\(([A-Za-z0-9_]+), *([A-Za-z0-9_]+)\).*/\2.\3/p' "$root"/grader/suites/"$lab"/*.cu
  } | sed 's/,$//' | grep -v '^__' | sort -u | while read -r name; do
    grep -rqF -- "$name" "$root/labs" "$root/common" "$root/config/course.yaml" || echo "$name"
  done
}
for yaml in "$root"/config/labs/*.yaml; do
  id=$(basename "$yaml" .yaml)
  mapfile -t known < <(hidden_only_strings "$id")
  (( ${#known[@]} >= 5 )) || fail "$id: too few strings known only to hidden files to search for: ${known[*]}"
  echo "$id: searching the release for ${#known[@]} strings known only to hidden files: ${known[*]}"
  for name in "${known[@]}"; do
    ! grep -rnF -- "$name" "$release" || fail "the release holds '$name', known only to $id's hidden files"
  done
done

step "timing preview: its thresholds, and no hidden one"
# Lab 01's YAML previews both timed cases (preview: true) against 85% of the copy bandwidth: the
# release carries exactly those entries, and none of the hidden cases' thresholds or credit.
released_yaml=$release/config/labs/$lab.yaml
previews=$(grep -c "preview: true" "$released_yaml" || true)
[[ $previews == 2 ]] || fail "the release's $lab.yaml has $previews timing previews, expected 2"
thresholds=$(grep -c "threshold: {min_fraction_of_peak_bandwidth: 0.85}" "$released_yaml" || true)
[[ $thresholds == 2 ]] || fail "the release's $lab.yaml carries $thresholds preview thresholds, expected 2"
for hidden in max_ratio_to_solution partial_credit zero_at; do
  ! grep -rn -- "$hidden" "$release/config" || fail "the release's YAML holds '$hidden', a hidden case's"
done
# A pipeline's preview (lab 09) is compared with its own stages, the self-check's: that kind may
# ship, in a preview entry only.
for yaml in "$release"/config/labs/*.yaml; do
  awk '/^  - name:/ { if (entry ~ /max_ratio_to_slowest_stage/ && entry !~ /preview: true/) bad = 1; entry = "" }
       { entry = entry "\n" $0 }
       END { if (entry ~ /max_ratio_to_slowest_stage/ && entry !~ /preview: true/) bad = 1; exit bad }' "$yaml" \
    || fail "$yaml holds max_ratio_to_slowest_stage outside a timing preview (a hidden case's)"
done
grep -q '`Preview.vector_add`: your code alone, at least 85%' "$release/README.md" \
  || fail "the release's README does not say that $lab has a timing preview and what it compares with"

step "configure and build on its own"
# With ccache, paths under the release are hashed relative to it, so a rerun reuses the objects.
export CCACHE_BASEDIR=$release
cmake -S "$release" -B "$release/build" -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="$archs" >"$scratch/configure.log" \
  || { cat "$scratch/configure.log"; fail "the release does not configure"; }
cmake --build "$release/build" --target labgrade "lab_${lab}_selfcheck" -j "$(nproc)" >"$scratch/build.log" \
  || { tail -50 "$scratch/build.log"; fail "the release does not build"; }
! grep -nF -- "$root" "$release/build/CMakeCache.txt" "$release/build/compile_commands.json" \
  || fail "the release's build names the instructor tree $root"

step "student commands only"
! "$release/build/labgrade" --help | grep -E '^ +(grade|release) ' || fail "the release's labgrade lists grade or release"
help=$("$release/build/labgrade" --help)
! grep -qiE 'and grade|(^|[[:space:]])grade:|solutions/' <<<"$help" \
  || fail "the release's labgrade --help speaks of grading or of solutions/: $(grep -iE 'and grade|(^|[[:space:]])grade:|solutions/' <<<"$help")"
grep -q 'submit: the archive was written' <<<"$help" || fail "the release's --help does not give submit's exit code"
grep -qx '/build/' "$release/.gitignore" || fail "the release has no .gitignore keeping its build folder out"
grep -q 'CMake 3.25 or newer' "$release/README.md" || fail "the release's README asks for another CMake than the build"
grep -q 'cmake_minimum_required(VERSION 3.25)' "$release/CMakeLists.txt" || fail "the release's CMake minimum differs"
for command in grade release; do
  set +e
  "$release/build/labgrade" "$command" "$lab" >/dev/null 2>&1
  code=$?
  set -e
  [[ $code == 2 ]] || fail "the release's labgrade took '$command' (exit code $code, expected 2: bad arguments)"
done

step "self-check of the skeleton"
set +e
(cd "$scratch" && "$release/build/labgrade" check "$lab") >"$scratch/check.log" 2>&1
code=$?
set -e
cat "$scratch/check.log"
case $code in
  5) grep -q "no CUDA device" "$scratch/check.log" || fail "exit code 5 without saying why"
     grep -q "Preview.vector_add  not measured" "$scratch/check.log" || fail "the report does not show the preview"
     grep -q "preview skipped: no CUDA device" "$scratch/check.log" || fail "the report does not say why the preview was skipped" ;;
  1) grep -q "Still TODO(student): vector_add, saxpy$" "$scratch/check.log" || fail "the TODOs left are not named"
     grep -q "Score: 0 / 20" "$scratch/check.log" || fail "the skeleton's public score is not 0 / 20"
     grep -q "preview skipped: not timed: the code it times returned cudaErrorNotYetImplemented" "$scratch/check.log" \
       || fail "the skeleton's preview does not say why it was not timed" ;;
  *) fail "check of the skeleton exited with $code (expected 5 without a GPU, 1 with one)" ;;
esac
grep -q "SelfCheck.VectorAddSmall" "$scratch/check.log" || fail "the report lists no public test"
gpu=$([[ $code == 1 ]] && echo yes || echo no)

if [[ $gpu == yes ]]; then
  step "self-check with the reference solution as the student's code"
  # A copy of the release, so the skeleton the later steps pack stays as the student got it.
  solved=$scratch/solved
  cp -r "$release" "$solved"
  rm -rf "$solved/build"
  cp "$root/solutions/$lab/vector_add.cu" "$solved/labs/$lab/vector_add.cu"
  cmake -S "$solved" -B "$solved/build" -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="$archs" \
    >"$scratch/solved-configure.log" || { cat "$scratch/solved-configure.log"; fail "the copy does not configure"; }
  cmake --build "$solved/build" --target labgrade "lab_${lab}_selfcheck" -j "$(nproc)" >"$scratch/solved-build.log" \
    || { tail -50 "$scratch/solved-build.log"; fail "the copy does not build"; }
  set +e
  (cd "$scratch" && "$solved/build/labgrade" check "$lab") >"$scratch/solved-check.log" 2>&1
  code=$?
  set -e
  cat "$scratch/solved-check.log"
  [[ $code == 0 ]] || fail "check of the solution exited with $code (expected 0)"
  grep -q "Score: 20 / 20" "$scratch/solved-check.log" || fail "the solution's public score is not 20 / 20"
  # Both previews measured, shown apart from the points (whether they are met is a figure of the
  # GPU, for the log, not for this test to assert).
  grep -q "Timing preview (your code alone on this GPU; a preview, not a grade: no points):" "$scratch/solved-check.log" \
    || fail "the solution's self-check shows no timing preview"
  for preview in vector_add saxpy; do
    grep -Eq "Preview.$preview  (meets|below) the preview threshold" "$scratch/solved-check.log" \
      || fail "the solution's self-check did not measure Preview.$preview"
  done
fi

step "submit"
out=$(cd "$scratch" && "$release/build/labgrade" submit "$lab" --output "$scratch/hand-in.tar.gz")
echo "$out"
[[ $(tar -tzf "$scratch/hand-in.tar.gz") == "vector_add.cu" ]] || fail "the archive holds more or less than vector_add.cu"
sum=$(sha256sum "$scratch/hand-in.tar.gz" | cut -d' ' -f1)
grep -qx "sha256 $sum" <<<"$out" || fail "submit printed another checksum than the archive's ($sum)"
if (cd "$scratch" && "$release/build/labgrade" submit "$lab" --output "$scratch/hand-in.tar.gz") 2>/dev/null; then
  fail "submit overwrote an existing archive"
fi
echo "PASS"
