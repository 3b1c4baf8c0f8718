#!/usr/bin/env bash
# On a GPU machine: what one compute-sanitizer start costs alone and with others at once, over
# bench/probes/sanitizer_start_probe.cu (one kernel). A sanitized batch ran its machine at 20-40%
# CPU and ~0% GPU and got slower with more tool runs at once (issue 30); on the H100 four default
# memcheck starts at once did not end within 400 s while one took 1.1 s. Each variant changes one
# thing, so the one that lets starts overlap shows:
#   default     compute-sanitizer --tool T probe
#   log-file    each instance with --log-file of its own (as labgrade runs it)
#   tmpdir      each instance with a TMPDIR of its own
#   workers     racecheck with --racecheck-num-workers 1
#   port        each instance with a port range of its own, when the tool's --help has a --port
#               option (the tool reaches its target through a port: starts at once may collide)
# Every group of starts is bounded by --timeout seconds (default 60): one that does not end in time
# is reported as such and its processes are killed, so a hang costs one timeout.
# Also prints the tool's options that say how it reaches its target (port, mode, timeouts).
#
#   bench/sanitizer_starts.sh [--build-dir DIR] [--sanitizer PATH] [--timeout S] [N ...]   (default N: 1 2 4 8)
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir="$root/build-gpu"
sanitizer=""
limit=60
counts=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --sanitizer) sanitizer=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "sanitizer_starts.sh: unknown option $1" >&2; exit 2 ;;
    *) counts+=("$1"); shift ;;
  esac
done
[ ${#counts[@]} -gt 0 ] || counts=(1 2 4 8)
probe="$build_dir/bench/sanitizer_start_probe"
[ -x "$probe" ] || { echo "sanitizer_starts.sh: no $probe: build first (cmake --build $build_dir --target sanitizer_start_probe)" >&2; exit 2; }
if [ -z "$sanitizer" ]; then
  # Where labgrade looks: beside nvcc, or in the toolkit's compute-sanitizer/ folder.
  nvcc_dir=$(dirname "$(readlink -f "$(command -v nvcc)")" 2>/dev/null)
  for candidate in "$nvcc_dir/compute-sanitizer" "$nvcc_dir/../compute-sanitizer/compute-sanitizer"; do
    [ -x "$candidate" ] && { sanitizer=$candidate; break; }
  done
fi
[ -x "$sanitizer" ] || { echo "sanitizer_starts.sh: no compute-sanitizer found (give --sanitizer PATH)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/sanitizer-starts.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "compute-sanitizer: $sanitizer"
"$sanitizer" --version 2>&1 | tail -1
help=$("$sanitizer" --help 2>&1)
grep -iE -A1 -- "--(port|base-port|max-connections|mode|launch-timeout|racecheck-num-workers)" <<<"$help" || true
port_option=$(grep -oE -- "--(base-)?port\b" <<<"$help" | head -1)

now() { date +%s%N; }
# One start of variant $1 with tool $2, instance $3 (its own folder under $work).
start_one() {
  local variant=$1 tool=$2 instance=$3 dir="$work/$1-$2-$3"
  mkdir -p "$dir"
  case $variant in
    default) "$sanitizer" --tool "$tool" "$probe" ;;
    log-file) "$sanitizer" --tool "$tool" --log-file "$dir/tool.log" "$probe" ;;
    tmpdir) TMPDIR=$dir "$sanitizer" --tool "$tool" "$probe" ;;
    workers) "$sanitizer" --tool "$tool" --racecheck-num-workers 1 "$probe" ;;
    port) "$sanitizer" --tool "$tool" "$port_option" $((49152 + 64 * instance)) "$probe" ;;
  esac >"$dir/out.txt" 2>&1
}
# N starts at once; prints the wall time, or that they did not end within the limit.
group() {
  local variant=$1 tool=$2 n=$3 i begin pids=() failed=0
  begin=$(now)
  for ((i = 0; i < n; i++)); do
    setsid bash -c "$(declare -f start_one); sanitizer='$sanitizer' probe='$probe' work='$work' port_option='$port_option' start_one $variant $tool $i" &
    pids+=($!)
  done
  local deadline=$(( $(date +%s) + limit ))
  while :; do
    local running=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && running=1; done
    [ $running = 0 ] && break
    if [ "$(date +%s)" -ge "$deadline" ]; then
      for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2>/dev/null; done
      wait 2>/dev/null
      printf '  %-9s %-9s %2d at once: did not end within %s s\n' "$variant" "$tool" "$n" "$limit"
      return
    fi
    sleep 0.05
  done
  local seconds failed_dir=""
  seconds=$(awk -v start="$begin" -v end="$(now)" 'BEGIN { printf "%.2f", (end - start) / 1e9 }')
  for ((i = 0; i < n; i++)); do
    wait "${pids[i]}" || { failed=$((failed + 1)); failed_dir="$work/$variant-$tool-$i"; }
  done
  printf '  %-9s %-9s %2d at once: %6s s\n' "$variant" "$tool" "$n" "$seconds"
  if [ $failed -gt 0 ]; then
    echo "    $failed of them exited non-zero; the last lines of one:"
    tail -3 "$failed_dir/out.txt" | sed 's/^/      /'
  fi
}

"$probe" || { echo "sanitizer_starts.sh: the probe fails without the tool" >&2; exit 1; }
for tool in memcheck racecheck; do
  for variant in default log-file tmpdir workers port; do
    [ "$variant" = workers ] && [ "$tool" != racecheck ] && continue
    [ "$variant" = port ] && [ -z "$port_option" ] && continue
    for n in "${counts[@]}"; do group "$variant" "$tool" "$n"; done
  done
done
