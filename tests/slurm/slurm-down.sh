#!/usr/bin/env bash
# Stops the Slurm that tests/slurm/slurm-up.sh DIR started: each daemon by the pid in its pid file.
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: tests/slurm/slurm-down.sh DIR" >&2; exit 2; }
dir=$1
for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
  [ -s "$f" ] || continue
  pid=$(cat "$f")
  kill "$pid" 2>/dev/null || continue
  for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
done
exit 0
