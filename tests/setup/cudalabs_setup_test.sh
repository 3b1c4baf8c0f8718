#!/usr/bin/env bash
# Tests ./cudalabs's setup against fake machines: a PATH of fake commands (cmake, apt-get, sudo, id,
# ...) whose answers each case sets, so the script's decisions are checked without installing or
# building anything. Cases: all present, CMake too old, a library missing (installed as root, online),
# no root and no sudo, offline, not Debian, optional tools and SQLite3 absent, relative paths, build logs kept,
# help for setup and doctor (which runs nothing), a mistyped command (answered before any build), an
# up-to-date tree (built without progress lines).
#
#   cudalabs_setup_test.sh <path to the cudalabs script>
set -uo pipefail

script=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d "${TMPDIR:-/tmp}/cudalabs-setup-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0

# Real tools the script itself uses (everything else on PATH is fake).
tools="$work/tools"
mkdir -p "$tools"
for tool in bash env cp sed sort head tail grep mktemp rm mkdir date ls cat dirname basename tr nproc touch flock sleep; do
  ln -s "$(command -v "$tool")" "$tools/$tool"
done

write() {  # write <file> <body>: an executable fake
  printf '#!%s\n%s\n' "$tools/bash" "$2" >"$1"
  chmod +x "$1"
}

# A fresh fake machine: root, online, Debian, every requirement present. $state holds what the fakes read.
new_machine() {
  machine="$work/$1"
  fake="$machine/fake"
  state="$machine/state"
  tree="$machine/tree"
  mkdir -p "$fake" "$state" "$tree/config/labs" "$machine/elsewhere"
  cp "$script" "$tree/cudalabs"
  : >"$tree/config/labs/01_vector_add.yaml"
  echo 3.31.6 >"$state/cmake_version"
  echo 0 >"$state/uid"
  write "$fake/nvcc" 'echo "Cuda compilation tools, release 13.0, V13.0.48"'
  write "$fake/g++" 'exit 0'
  write "$fake/make" 'exit 0'
  write "$fake/dpkg-query" 'exit 0'
  write "$fake/id" "cat '$state/uid'"
  write "$fake/sudo" "[ -f '$state/sudo_ok' ] || exit 1; [ \"\$1\" = -n ] && shift; \"\$@\""
  write "$fake/apt-get" "echo \"apt-get \$*\" >>'$state/apt.log'
[ \"\$1\" = update ] && { [ -f '$state/offline' ] && exit 100; exit 0; }
for package in \"\$@\"; do
  case \"\$package\" in
    libcli11-dev) sed -i '/^CLI11\$/d' '$state/missing' ;;
    libfmt-dev) sed -i '/^fmt\$/d' '$state/missing' ;;
    cmake) echo 3.28.3 >'$state/cmake_version' ;;
  esac
done
exit 0"
  : >"$state/missing"
  # What the fake build produces: a labgrade that shows how it was called.
  printf '#!%s\necho "labgrade $*"\necho "cwd $PWD"\n' "$tools/bash" >"$state/labgrade"
  chmod +x "$state/labgrade"
  write "$fake/cmake" "state='$state'
case \"\$1\" in
  --version) echo \"cmake version \$(cat \"\$state/cmake_version\")\" ;;
  -S) for package in GTest yaml-cpp CLI11 fmt nlohmann_json SQLite3; do
        if grep -qx \"\$package\" \"\$state/missing\"; then echo \"-- cudalabs-probe: missing \$package\"
        else echo \"-- cudalabs-probe: found \$package\"; fi
      done ;;
  --preset) echo \"configure in \$PWD\" >>\"\$state/calls\"; mkdir -p build; touch build/CMakeCache.txt ;;
  --build) shift; echo \"build \$*\" >>\"\$state/calls\"
      if [ -f \"\$state/slow\" ]; then echo build-start >>\"\$state/calls\"; sleep 1; echo build-end >>\"\$state/calls\"; fi
      if [ -f \"\$state/up_to_date\" ]; then for percent in 50 100; do echo \"[ \$percent%] Built target labgrade\"; done
      else for percent in 12 50 100; do echo \"[ \$percent%] Building something\"; done; fi
      mkdir -p build; cp \"\$state/labgrade\" build/labgrade ;;
esac
exit 0"
}

run_cudalabs() {  # run_cudalabs <args...>: from $machine/elsewhere; sets $code, $out
  out=$(cd "$machine/elsewhere" && PATH="$fake:$tools" HOME="$machine" "$tree/cudalabs" "$@" 2>&1)
  code=$?
}

expect() {  # expect <description> <condition...>
  local what=$1
  shift
  if ! "$@"; then
    echo "FAILED [$machine]: $what"
    echo "  exit code: $code"
    echo "$out" | sed 's/^/  | /'
    failures=$((failures + 1))
  fi
}
has() { grep -qF -- "$1" <<<"$out"; }
logged() { [ -f "$state/$1" ] && grep -qF -- "$2" "$state/$1"; }
no_file() { [ ! -e "$state/$1" ]; }

# 1. Everything present: nothing installed, configured and built.
new_machine all_present
run_cudalabs setup
expect "setup succeeds" [ "$code" = 0 ]
expect "nothing installed" no_file apt.log
expect "configured in the tree" logged calls "configure in $tree"
expect "setup builds everything" logged calls "--target all"
expect "says it is ready" has "ready:"

# 2. CMake too old and no way to install: exit 9 naming the version.
new_machine cmake_too_old
echo 3.18.0 >"$state/cmake_version"
echo 1000 >"$state/uid"
run_cudalabs setup
expect "exit code 9" [ "$code" = 9 ]
expect "names the old version" has "cmake 3.18.0 is too old: cudalabs needs 3.25 or newer"
expect "says why it cannot install" has "cannot use sudo without a password"
expect "does not configure" no_file calls

# 2b. CMake too old, root, online: upgraded with apt-get, then built.
new_machine cmake_upgrade
echo 3.18.0 >"$state/cmake_version"
run_cudalabs setup
expect "exit code 0" [ "$code" = 0 ]
expect "installs cmake only" logged apt.log "install -y -qq cmake"

# 3. A library missing, root, online: only that package installed.
new_machine library_missing
echo CLI11 >"$state/missing"
run_cudalabs setup
expect "exit code 0" [ "$code" = 0 ]
expect "installs exactly the missing package" logged apt.log "install -y -qq libcli11-dev"
expect "installs nothing else" bash -c "! grep -q 'libfmt-dev\|libgtest-dev\|unzip\|libxml2-utils' '$state/apt.log'"

# 4. A library missing, no root and no sudo: the command to run, exit 9, nothing attempted.
new_machine no_root_no_sudo
echo CLI11 >"$state/missing"
echo 1000 >"$state/uid"
run_cudalabs setup
expect "exit code 9" [ "$code" = 9 ]
expect "prints the command" has "sudo apt-get install -y libcli11-dev"
expect "names the CMake package" has "CMake does not find CLI11"
expect "apt-get not run" no_file apt.log

# 4b. Same with a password-less sudo: installed through sudo.
new_machine with_sudo
echo fmt >"$state/missing"
echo 1000 >"$state/uid"
touch "$state/sudo_ok"
run_cudalabs setup
expect "exit code 0" [ "$code" = 0 ]
expect "installs through sudo" logged apt.log "install -y -qq libfmt-dev"

# 5. Offline: apt-get update fails; exit 9 (never apt's own 100) with the reason.
new_machine offline
echo fmt >"$state/missing"
touch "$state/offline"
run_cudalabs setup
expect "exit code 9" [ "$code" = 9 ]
expect "says the archive is unreachable" has "could not be reached (offline?)"
expect "does not configure" no_file calls

# 6. Not Debian: no apt-get; the package named, exit 9.
new_machine not_debian
rm "$fake/apt-get" "$fake/dpkg-query"
echo CLI11 >"$state/missing"
run_cudalabs setup
expect "exit code 9" [ "$code" = 9 ]
expect "says it cannot install here" has "not a Debian/Ubuntu machine"

# 7. Optional tools absent never block; doctor says what they add.
new_machine optional_absent
run_cudalabs doctor
expect "doctor exit code 0" [ "$code" = 0 ]
expect "lists xmllint as optional" has "absent   xmllint"
expect "says what compute-sanitizer adds" has "--sanitize"
run_cudalabs setup
expect "setup exit code 0" [ "$code" = 0 ]

# 7b. SQLite3 missing (the GPU machine: no libsqlite3-dev, no network): optional, so it never
#     blocks; doctor says what it adds (labgrade batch) and setup builds without it.
new_machine sqlite_absent
echo SQLite3 >"$state/missing"
touch "$state/offline"
run_cudalabs doctor
expect "doctor exit code 0" [ "$code" = 0 ]
expect "lists SQLite3 as optional, with what it adds" has "absent   CMake package SQLite3: labgrade batch"
run_cudalabs setup
expect "setup exit code 0" [ "$code" = 0 ]
expect "installs nothing" no_file apt.log
expect "configures" logged calls "configure"

# 8. Relative paths: labgrade runs in the caller's folder with the arguments unchanged, and only
#    the lab's grader is built.
new_machine relative_paths
run_cudalabs grade 01_vector_add -s big --json out.json
expect "exit code 0" [ "$code" = 0 ]
expect "arguments unchanged" has "labgrade grade 01_vector_add -s big --json out.json"
expect "runs in the caller's folder" has "cwd $machine/elsewhere"
expect "builds only what grade needs" logged calls "--target labgrade lab_01_vector_add_grade"
run_cudalabs check 01_vector_add
expect "check builds the self-check only" logged calls "--target labgrade lab_01_vector_add_selfcheck"

# 9. Each build keeps its own log.
logs=$(ls "$tree/.cudalabs-logs"/build-*.log 2>/dev/null | wc -l)
expect "two builds, two logs (found $logs)" [ "$logs" = 2 ]

# 10. Help: setup --help explains setup and runs nothing; the top-level help documents setup.
new_machine help
run_cudalabs setup --help
expect "setup --help exits 0" [ "$code" = 0 ]
expect "help documents exit code 9" has "9  setup could not finish"
expect "help is setup's own" has "Usage: ./cudalabs setup"
expect "setup --help configures nothing" no_file calls
expect "setup --help installs nothing" no_file apt.log
run_cudalabs doctor -h
expect "doctor -h exits 0" [ "$code" = 0 ]
expect "doctor -h explains doctor" has "./cudalabs doctor    only look"
expect "doctor -h checks nothing" bash -c "! grep -q 'required:' <<<\"\$1\"" _ "$out"
run_cudalabs --help
expect "--help exits 0" [ "$code" = 0 ]
expect "--help documents setup" has "./cudalabs setup "
expect "--help says every command has --help" has "Every command has --help"
expect "--help lists submit" has "./cudalabs submit "
expect "--help lists release" has "./cudalabs release "
run_cudalabs setup now
expect "an argument setup does not take: exit 2" [ "$code" = 2 ]
expect "names the argument" has "setup takes no arguments (got: now)"
expect "and runs nothing" no_file calls


# 11. A mistyped command is answered before any setup or build (issue 30: ./cudalabs grde built
#     first); where labgrade is built it answers itself, with the nearest command.
new_machine mistyped
run_cudalabs grde 01_vector_add
expect "not a command: exit 2" [ "$code" = 2 ]
expect "says it is not a command" has "'grde' is not a command"
expect "and neither configures nor builds" no_file calls
run_cudalabs setup
rm -f "$state/calls"
run_cudalabs grde 01_vector_add
expect "labgrade answers once built" has "labgrade grde 01_vector_add"
expect "still without a build" no_file calls

# 12. An up-to-date tree builds silently (issue 30: ./cudalabs list printed four progress lines
#     on every call); a build that compiles shows its progress.
new_machine quiet
run_cudalabs list
expect "a first build shows progress" has "building labgrade: "
touch "$state/up_to_date"
run_cudalabs list
expect "list exits 0" [ "$code" = 0 ]
expect "the build ran" logged calls "--target labgrade"
expect "an up-to-date build prints no progress" bash -c "! grep -q 'building labgrade' <<<\"\$1\"" _ "$out"
expect "labgrade ran" has "labgrade list"

# 13. Two ./cudalabs in one tree at once build one after the other (issue 30: nothing guarded it).
new_machine concurrent
run_cudalabs setup
rm -f "$state/calls"
touch "$state/slow"
(cd "$machine/elsewhere" && PATH="$fake:$tools" HOME="$machine" "$tree/cudalabs" list >"$machine/one.log" 2>&1) &
(cd "$machine/elsewhere" && PATH="$fake:$tools" HOME="$machine" "$tree/cudalabs" list >"$machine/two.log" 2>&1) &
wait
order=$(grep -E '^build-(start|end)$' "$state/calls" | tr '\n' ' ')
expect "the builds did not overlap (got: $order)" [ "$order" = "build-start build-end build-start build-end " ]
expect "the second says it waits" bash -c "cat '$machine/one.log' '$machine/two.log' | grep -q 'waiting for it to finish'"

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all setup cases passed"
