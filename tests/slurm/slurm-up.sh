#!/usr/bin/env bash
# Starts a real single-node Slurm (munged, slurmctld, slurmd from Debian's packages) for the fleet
# tests, everything in DIR: keys, sockets, state, logs, the configuration. Runs as root (CI) or as
# any user: the daemons run as the user who starts them, and so do the jobs. The node offers 4
# GPUs as GRES whose device files are links to /dev/null, so jobs ask for GRES gpu as on a GPU
# cluster and Slurm binds one "GPU" to each task (CUDA_VISIBLE_DEVICES), with no GPU present.
#
#   tests/slurm/slurm-up.sh DIR      # then: export SLURM_CONF=DIR/slurm.conf
#   tests/slurm/slurm-down.sh DIR    # stops what this started (by the pid files in DIR)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: tests/slurm/slurm-up.sh DIR (an empty folder)" >&2; exit 2; }
dir=$(cd "$1" && pwd)
for p in munged mungekey slurmctld slurmd sinfo scontrol; do
  command -v "$p" >/dev/null || { echo "slurm-up: $p is missing (scripts/setup-deps.sh --fleet installs Slurm and munge)" >&2; exit 1; }
done
user=$(id -un)
host=$(hostname -s)
mkdir -p "$dir"/{munge,state,spool,log,dev}
chmod 755 "$dir"
chmod 700 "$dir/munge"

# munge: a fresh key and its own socket, so nothing of the machine's munge is used or disturbed.
mungekey --create --keyfile="$dir/munge/munge.key" 2>/dev/null ||
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"

# Two free ports on the loopback (bound and released: the daemons take them a moment later).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
for i in 0 1 2 3; do ln -sf /dev/null "$dir/dev/gpu$i"; done
cat >"$dir/slurm.conf" <<CONF
# A single-node Slurm for gpubench's fleet tests (tests/slurm/slurm-up.sh).
ClusterName=gpubenchci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
# 4 CPUs whatever the machine has, so 4 tasks of one CPU each fit on a 2-core CI machine.
SlurmdParameters=config_overrides
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=4 RealMemory=1000 Gres=gpu:4 State=UNKNOWN
PartitionName=ci Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
cat >"$dir/gres.conf" <<CONF
NodeName=$host Name=gpu File=$dir/dev/gpu[0-3]
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N "$host"

# Up once the node is idle (a fresh slurmd registers within a second or two).
for _ in $(seq 1 60); do
  state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
  [ "$state" = idle ] && { echo "slurm-up: Slurm is up in $dir (node $host idle; export SLURM_CONF=$SLURM_CONF)"; exit 0; }
  sleep 0.5
done
echo "slurm-up: the node did not come up (state '${state:-unknown}'); logs in $dir/log:" >&2
tail -n 5 "$dir"/log/*.log >&2 || true
exit 1
