#!/usr/bin/env bash
# Runs a command against a real single-node Slurm cluster on this machine, started for it and
# stopped after it: munged, slurmctld and slurmd (Debian: slurm-wlm, munge) in a private
# directory, on free ports, as the current user, with no accounting and no GPU gres. The command
# sees SLURM_CONF and CUDALABS_REAL_SLURM=1.
#
#   tests/slurm/with_local_slurm.sh command [args...]
#
# Exit code: the command's; 77 (ctest's "skipped") when Slurm or munge is not installed; 1 when
# the cluster does not come up (its logs are printed).
set -uo pipefail

for tool in munged slurmctld slurmd sbatch squeue sinfo; do
  if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
    echo "with_local_slurm: $tool is not installed (Debian/Ubuntu: slurm-wlm munge): skipped" >&2
    exit 77
  fi
done
export PATH="$PATH:/usr/sbin"
[ $# -gt 0 ] || { echo "usage: with_local_slurm.sh command [args...]" >&2; exit 2; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/cudalabs-slurm.XXXXXX")
chmod 700 "$dir"
pids=()
stop() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  rm -rf "$dir"
}
trap stop EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000))
}

user=$(id -un)
host=$(hostname -s)
mkdir -p "$dir/munge" "$dir/ctld" "$dir/slurmd"
head -c 1024 /dev/urandom >"$dir/munge/key"
chmod 400 "$dir/munge/key"
munged --force --key-file="$dir/munge/key" --socket="$dir/munge/socket" --pid-file="$dir/munge/pid" \
  --log-file="$dir/munge/log" --seed-file="$dir/munge/seed" || { cat "$dir/munge/log" >&2; exit 1; }
pids+=("$(cat "$dir/munge/pid")")

cat >"$dir/slurm.conf" <<CONF
ClusterName=cudalabs-test
SlurmctldHost=$host
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
SlurmUser=$user
SlurmdUser=$user
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/slurmd
SlurmctldPidFile=$dir/ctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/ctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf

slurmctld -D -i >"$dir/ctld.out" 2>&1 &
pids+=($!)
slurmd -D >"$dir/slurmd.out" 2>&1 &
pids+=($!)

# Up when the node is idle (or mixed/allocated: someone else's job).
for _ in $(seq 1 60); do
  state=$(sinfo -h -N -o %T 2>/dev/null | head -n 1)
  case "$state" in idle*|mixed*|alloc*) break ;; esac
  sleep 0.5
done
case "$state" in
  idle*|mixed*|alloc*) ;;
  *) echo "with_local_slurm: the cluster did not come up (node state '${state:-none}')" >&2
     tail -n 20 "$dir"/ctld.log "$dir"/slurmd.log "$dir"/*.out >&2 2>/dev/null
     exit 1 ;;
esac
echo "with_local_slurm: single-node cluster up ($host, $(nproc) CPUs, SLURM_CONF=$SLURM_CONF)" >&2

CUDALABS_REAL_SLURM=1 "$@"
