#!/usr/bin/env bash
# The HTML reports in a real browser: headless Chromium parses a graded report (the golden one:
# tests, performance charts) and a report made here (lab 04's solution: its kernels table, and no
# score where there is no GPU), and what it built must hold every chart and section the page
# sent. Skipped (exit 77) where no Chromium is installed (Debian/Ubuntu: apt-get install chromium).
#
#   grader/tests/html_in_browser_test.sh LABGRADE SOURCE_DIR
set -euo pipefail
labgrade=$1
source_dir=$2

browser=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null 2>&1; then browser=$candidate; break; fi
done
[ -n "$browser" ] || { echo "SKIP: no Chromium here (apt-get install chromium)"; exit 77; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The DOM Chromium built from a page (no network, a throwaway profile).
dom_of() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --user-data-dir="$scratch/profile" --dump-dom "file://$1" 2>/dev/null
}
count() { grep -o "$1" | wc -l; }

# A browser that cannot start here (a container without what it needs) is no finding about the
# reports: skip, saying so.
echo '<!DOCTYPE html><html><body><p id="alive">alive</p></body></html>' >"$scratch/alive.html"
dom_of "$scratch/alive.html" | grep -q 'id="alive"' || { echo "SKIP: $browser does not start here"; exit 77; }

golden="$source_dir/grader/tests/unit/golden/graded.html"
dom=$(dom_of "$golden") || fail "$browser could not load $golden"
[ -n "$dom" ] || fail "$browser built no DOM from $golden"
sent=$(count '<svg' <"$golden")
built=$(count '<svg' <<<"$dom")
[ "$sent" -gt 0 ] && [ "$built" -eq "$sent" ] || fail "$golden sends $sent charts, the browser built $built"
for section in '<h2>Tests</h2>' '<h2>Performance</h2>' 'roofline:'; do
  grep -qF "$section" <<<"$dom" || fail "the browser's page of $golden lacks $section"
done

"$labgrade" grade 04_transpose --submission "$source_dir/solutions/04_transpose" --html "$scratch/r04.html" \
  >"$scratch/grade.log" 2>&1 || true
[ -s "$scratch/r04.html" ] || { cat "$scratch/grade.log"; fail "labgrade wrote no HTML report"; }
dom=$(dom_of "$scratch/r04.html") || fail "$browser could not load lab 04's report"
grep -qF 'Your kernels, as the compiler built them' <<<"$dom" || fail "no kernels table in the browser's page"
rows=$(count '<td class="name" style="white-space: nowrap">' <<<"$dom")
[ "$rows" -ge 3 ] || fail "the kernels table has $rows rows in the browser (lab 04's solution has 3 kernels)"
if grep -q 'no_cuda_device' "$scratch/grade.log" "$scratch/r04.html"; then
  grep -qF '<title>Grade of 04_transpose: no score</title>' <<<"$dom" || fail "a report without a GPU shows a score"
fi
# And it renders: a screenshot of the page.
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
  --user-data-dir="$scratch/profile" --window-size=1200,1600 --screenshot="$scratch/r04.png" "file://$scratch/r04.html" >/dev/null 2>&1 || true
[ -s "$scratch/r04.png" ] || fail "$browser rendered no screenshot of lab 04's report"
echo "PASS: $browser parsed and rendered both reports"
