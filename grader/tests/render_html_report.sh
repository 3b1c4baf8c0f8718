#!/usr/bin/env bash
# Renders a labgrade HTML report to a PNG with headless Chromium, to look at how it lays out.
#
#   grader/tests/render_html_report.sh REPORT.html [OUT.png] [WIDTHxHEIGHT]
#   grader/tests/render_html_report.sh grader/tests/unit/golden/graded.html /tmp/graded.png
#
# Needs Debian's `chromium` package (large, so CI does not depend on this script). The page
# loads nothing from the network; --no-sandbox lets it run as root in a container.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 3 ]; then
  echo "usage: $0 REPORT.html [OUT.png] [WIDTHxHEIGHT (default 1200x1600)]" >&2
  exit 2
fi
report=$(realpath "$1")
out=$(realpath -m "${2:-${1%.html}.png}")
size=${3:-1200x1600}

browser=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null 2>&1; then browser=$candidate; break; fi
done
if [ -z "$browser" ]; then
  echo "$0: no chromium found; install it with: sudo apt-get install chromium" >&2
  exit 1
fi

# A throwaway profile, so no state of an earlier run (or of the user's browser) is used.
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
  --window-size="${size/x/,}" --screenshot="$out" "file://$report" >/dev/null 2>&1
[ -s "$out" ] || { echo "$0: $browser wrote no screenshot" >&2; exit 1; }
echo "$out"
