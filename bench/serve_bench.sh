#!/usr/bin/env bash
# `labgrade serve` against `labgrade grade`: what the service adds to one submission, and its
# throughput with N submissions queued at once (one per student). The submission defaults to a
# compile error (graded without a GPU, so this runs anywhere); on a GPU machine give the lab's
# solution (--submission solutions/01_vector_add) to time real grades. Prints: one `grade` (mean
# of N), one `submit --server` from upload to report (packing, upload, queue, grade, reports; on an idle service), the N queued
# (wall time from the first upload to the last report, per submission, submissions per hour), and
# every student whose points differ from `grade`'s (there should be none). Needs curl.
#
#   bench/serve_bench.sh [--build-dir DIR] [--submission DIR] [N]   (default N: 20)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir="$root/build-gpu"
submission="$root/grader/tests/cli/submissions/01_vector_add/syntax_error"
count=20
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --submission) submission=$(cd "$2" && pwd); shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    -*) echo "serve_bench.sh: unknown option $1" >&2; exit 2 ;;
    *) count=$1; shift ;;
  esac
done
labgrade="$build_dir/labgrade"
[ -x "$labgrade" ] || { echo "serve_bench.sh: no $labgrade: build first" >&2; exit 2; }
command -v curl > /dev/null || { echo "serve_bench.sh: needs curl" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/serve-bench.XXXXXX")
server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2> /dev/null; wait 2> /dev/null; rm -rf "$work"' EXIT
now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc -l; }

"$labgrade" submit 01_vector_add --from "$submission" -o "$work/archive.tar.gz" > /dev/null
{ echo student_id; for i in $(seq 0 "$count"); do echo "s$i"; done; } > "$work/roster.csv"
"$labgrade" tokens issue --data "$work/data" --roster "$work/roster.csv" --out "$work/tokens.csv" > /dev/null
token() { grep "^$1," "$work/tokens.csv" | cut -d, -f2; }

# `grade`, one at a time.
start=$(now)
for i in $(seq 1 "$count"); do
  "$labgrade" grade 01_vector_add -s "$work/archive.tar.gz" --json "$work/grade-$i.json" > /dev/null || true
done
grade_total=$(elapsed "$start" "$(now)")

"$labgrade" serve --data "$work/data" --port 0 --rate $((count + 5)) > "$work/serve.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 250); do grep -q "listening on" "$work/serve.log" && break; sleep 0.02; done
url=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/serve.log" | head -1)

# One submission on an idle service, as a student runs it.
start=$(now)
LABGRADE_TOKEN=$(token s0) "$labgrade" submit 01_vector_add --server "$url" --from "$submission" \
  --html "$work/s0.html" > /dev/null 2>&1 || true
single=$(elapsed "$start" "$(now)")

# N queued at once.
start=$(now)
for i in $(seq 1 "$count"); do
  curl -s -H "Authorization: Bearer $(token "s$i")" -H 'Content-Type: application/gzip' \
    --data-binary @"$work/archive.tar.gz" "$url/api/v1/labs/01_vector_add/submissions?mode=grade" > "$work/queued-$i.json"
done
uploaded=$(elapsed "$start" "$(now)")
for i in $(seq 1 "$count"); do
  id=$(sed -n 's/.*"id": *\([0-9]*\).*/\1/p' "$work/queued-$i.json")
  while ! curl -s -H "Authorization: Bearer $(token "s$i")" "$url/api/v1/submissions/$id" | grep -q '"state": "done"'; do
    sleep 0.05
  done
  curl -s -H "Authorization: Bearer $(token "s$i")" "$url/api/v1/submissions/$id/report.json" > "$work/served-$i.json"
done
queued_total=$(elapsed "$start" "$(now)")

differ=0
for i in $(seq 1 "$count"); do
  a=$(sed -n 's/^  "points_earned": \(.*\),$/\1/p' "$work/grade-$i.json")
  b=$(sed -n 's/^  "points_earned": \(.*\),$/\1/p' "$work/served-$i.json")
  [ "$a" = "$b" ] || { echo "s$i: grade $a, service $b"; differ=$((differ + 1)); }
done

printf 'submission: %s\n' "$submission"
printf 'grade, one at a time:        %6.2f s each (%d in %.1f s)\n' "$(echo "$grade_total / $count" | bc -l)" "$count" "$grade_total"
printf 'submit --server, idle:       %6.2f s from packing to saved report\n' "$single"
printf '%d queued at once:           %6.2f s in all (uploads %.2f s), %.2f s each, %.0f an hour\n' "$count" \
  "$queued_total" "$uploaded" "$(echo "$queued_total / $count" | bc -l)" "$(echo "3600 * $count / $queued_total" | bc -l)"
printf 'service overhead per queued submission: %+.2f s against grade\n' \
  "$(echo "$queued_total / $count - $grade_total / $count" | bc -l)"
printf 'students whose points differ from grade: %d\n' "$differ"
