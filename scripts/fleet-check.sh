#!/usr/bin/env bash
# One host with two GPUs, in one call of under 4 minutes (docs/fleet.md):
#   1. chapter 8's collectives one process per GPU under mpirun: ncclAllReduce at 1 GiB
#      (allreduce_ranks), every rank verifying its result, beside nccl-tests' all_reduce_perf run
#      the same way where it is given (ALL_REDUCE_PERF); the same size in the one-process mode
#      (ch08/allreduce, ncclCommInitAll) beside it; sharded_step (reduce-scatter + all-gather)
#      with --quick;
#   2. a fleet job of one task per GPU through a real single-node Slurm (tests/slurm/slurm-up.sh,
#      whose GRES binds task t to CUDA_VISIBLE_DEVICES=t), or, where Slurm is not installed, the
#      same `fleet begin` and `fleet task` commands with Slurm's variables set by hand; once with
#      both GPUs idle, once with a contention load on GPU 1 (other gpubench processes copying over
#      PCIe and through its memory in a loop), and `fleet report` of each: two GPUs are too few to
#      flag, so the report lists them slowest first by their ratio to the pair's median.
#
#   scripts/fleet-check.sh [GPUBENCH]   # default build/gpubench; results under $OUT
#                                       # (default ./fleet-check-out), the console in
#                                       # $OUT/fleet-check.txt
# Needs: mpirun (Debian: openmpi-bin, installed or unpacked under GPUDEPS), python3; Slurm
# (slurmctld slurmd slurm-client munge, installed) for the Slurm path. NVLink multicast stays off
# (NCCL_NVLS_ENABLE=0).
# Exit: 0 every step ran; 1 a step failed (each step's outcome is printed, the others still run);
# 2 usage or a missing prerequisite.
set -uo pipefail
[ $# -le 1 ] || { echo "usage: scripts/fleet-check.sh [GPUBENCH]" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
gb=${1:-$repo/build/gpubench}
out=${OUT:-$PWD/fleet-check-out}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
exec > >(tee "$out/fleet-check.txt") 2>&1
export NCCL_NVLS_ENABLE=0
work=$(mktemp -d)
export GPUBENCH_CACHE_DIR=$work/cache
slurm_dir=
load_loops=()
cleanup() {
  stop_load
  [ -z "$slurm_dir" ] || "$repo/tests/slurm/slurm-down.sh" "$slurm_dir"
  rm -rf "$work"
}
trap cleanup EXIT

# Open MPI unpacked (dpkg -x) under $GPUDEPS rather than installed, as the device's staging does
# (default /opt/gpudeps): its compiled-in paths moved there (OPAL_PREFIX, and PMIx's components by
# their own path), its libraries found there.
staged=${GPUDEPS:-/opt/gpudeps}/usr
if ! command -v mpirun >/dev/null && [ -x "$staged/bin/orterun" ]; then
  mkdir -p "$work/bin"
  ln -s "$staged/bin/orterun" "$work/bin/mpirun"
  export PATH=$work/bin:$PATH OPAL_PREFIX=$staged
  export LD_LIBRARY_PATH=$staged/lib/x86_64-linux-gnu:$staged/lib/x86_64-linux-gnu/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PMIX_MCA_mca_base_component_path=$staged/lib/x86_64-linux-gnu/pmix2/lib/pmix
  echo "fleet-check: Open MPI from $staged"
fi

need() { echo "fleet-check: $*" >&2; exit 2; }
[ -x "$gb" ] || need "$gb is not an executable gpubench (build it, or pass its path)"
missing=$(ldd "$gb" 2>/dev/null | grep "not found")
[ -z "$missing" ] || need "$gb lacks libraries: $missing"
command -v mpirun >/dev/null || need "mpirun not found (Debian: openmpi-bin, or staged under GPUDEPS)"
command -v python3 >/dev/null || need "python3 not found"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$gpus" -ge 2 ] || need "this check needs two GPUs; nvidia-smi lists $gpus"

failed=0
step() { echo; echo "== $*"; }
result() {  # result RC WHAT
  if [ "$1" -eq 0 ]; then echo "fleet-check: ok: $2"; else echo "fleet-check: FAILED (exit $1): $2"; failed=1; fi
}

step "the GPUs"
nvidia-smi -L
nvidia-smi topo -m | tee "$out/topo.txt"
df -h /dev/shm  # NCCL's processes share buffers through it
"$gb" --version

# --- 1. Collectives, one process per GPU -----------------------------------------------------
mpi=(mpirun -np 2 --bind-to none -x NCCL_NVLS_ENABLE=0 -x GPUBENCH_CACHE_DIR
  --mca btl self,vader --mca btl_vader_single_copy_mechanism none --mca mca_base_component_show_load_errors 0)
[ "$(id -u)" -eq 0 ] && mpi+=(--allow-run-as-root)

# Each record's status, median and GB/s (busbw for chapter 8), and the ranks' GPUs; exit 1 when a
# record did not pass (a collective's passes only where every rank verified its result).
summarize() {
  python3 - "$1" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
for g in p.get("options", {}).get("rank_gpus", []) or []:
    print("  rank GPU:", json.dumps(g))
for r in p["records"]:
    size = ",".join("%s=%s" % kv for kv in (r.get("size") or {}).items())
    med = (r.get("summary") or {}).get("median")
    bw = (r.get("throughput") or {}).get("bytes_per_s")
    print("  %-16s %-18s %-34s %-8s %s %s" % (r["pair"], r["variant"], size, r["status"],
          "median %.4f ms" % (med * 1e3) if med else "", "%.2f GB/s" % (bw / 1e9) if bw else ""))
sys.exit(0 if p["records"] and all(r["status"] == "passed" for r in p["records"]) else 1)
PY
}

step "allreduce_ranks at 1 GiB, 2 processes: ${mpi[*]} $gb collective --pair allreduce_ranks --axis bytes=1073741824"
timeout 70 "${mpi[@]}" "$gb" collective --pair allreduce_ranks --axis bytes=1073741824 \
  --out "$out/collective-allreduce-1g.json"
rc=$?
if [ -s "$out/collective-allreduce-1g.json" ]; then summarize "$out/collective-allreduce-1g.json" || { [ "$rc" -ne 0 ] || rc=3; }; fi
result $rc "ncclAllReduce one process per GPU at 1 GiB (collective-allreduce-1g.json)"

# nccl-tests run the same way, where its all_reduce_perf (built with MPI=1) is given: $ALL_REDUCE_PERF,
# else build/nccl-tests/all_reduce_perf (scripts/analysis/nccl-tests-mpi-compare.sh says how to build it).
perf=${ALL_REDUCE_PERF:-$repo/build/nccl-tests/all_reduce_perf}
if [ -x "$perf" ]; then
  step "nccl-tests at 1 GiB, 2 processes: ${mpi[*]} $perf -b 1G -e 1G -g 1"
  timeout 30 "${mpi[@]}" "$perf" -b 1G -e 1G -g 1 | tee "$out/nccl-tests-all-reduce-1g.txt"
  rc=$?
  # all_reduce_perf's out-of-place busbw (column 8) at 1073741824 bytes; gpubench's nccl variant.
  theirs=$(awk '!/^#/ && $1 == 1073741824 { print $8; exit }' "$out/nccl-tests-all-reduce-1g.txt")
  ours=$(python3 - "$out/collective-allreduce-1g.json" 2>/dev/null <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["records"]:
    if r["pair"] == "allreduce_ranks" and r["variant"] == "nccl" and r["status"] == "passed":
        print("%.2f" % (r["throughput"]["bytes_per_s"] / 1e9))
        break
PY
  )
  if [ -n "$theirs" ] && [ -n "$ours" ]; then
    awk -v t="$theirs" -v o="$ours" 'BEGIN { printf "busbw at 1 GiB, 2 processes: nccl-tests %.2f GB/s, gpubench %.2f GB/s, gpubench/nccl-tests %.3f\n", t, o, o / t }' |
      tee "$out/busbw-vs-nccl-tests.txt"
  else
    echo "fleet-check: a busbw figure is missing (nccl-tests '$theirs', gpubench '$ours')"
    [ "$rc" -ne 0 ] || rc=1
  fi
  result $rc "nccl-tests all_reduce_perf beside gpubench (busbw-vs-nccl-tests.txt)"
else
  echo "fleet-check: no nccl-tests all_reduce_perf at $perf (ALL_REDUCE_PERF); busbw is not set beside nccl-tests"
fi

step "allreduce at 1 GiB, one process driving both GPUs: $gb run --pair ch08/allreduce --axis bytes=1073741824"
timeout 40 "$gb" run --pair ch08/allreduce --axis bytes=1073741824 --out "$out/single-allreduce-1g.json" \
  >"$out/single-allreduce-1g.txt" 2>&1
rc=$?
tail -n 12 "$out/single-allreduce-1g.txt"
if [ -s "$out/single-allreduce-1g.json" ]; then summarize "$out/single-allreduce-1g.json" || { [ "$rc" -ne 0 ] || rc=3; }; fi
result $rc "ncclAllReduce from one process at 1 GiB (single-allreduce-1g.json)"

step "sharded_step, 2 processes, --quick"
timeout 25 "${mpi[@]}" "$gb" collective --pair sharded_step --quick --out "$out/collective-sharded-quick.json"
rc=$?
if [ -s "$out/collective-sharded-quick.json" ]; then summarize "$out/collective-sharded-quick.json" || { [ "$rc" -ne 0 ] || rc=3; }; fi
result $rc "reduce-scatter + all-gather one process per GPU (collective-sharded-quick.json)"

# --- 2. A fleet of the two GPUs ----------------------------------------------------------------
run_args=(--pair ch01/pinned_transfers --pair ch02/vectorized_access --axis size_mib=256 --axis n=268435459 --quick)
store=$work/store
mkdir -p "$store"
chmod 755 "$work"

# A contention load on GPU 1 until stop_load: two loops of gpubench runs, one copying 1 GiB between
# host and device, one streaming through its memory; each loop's current run is in a pid file.
load_loop() {  # load_loop NAME ARGS...
  local name=$1
  shift
  while [ -e "$work/load.on" ]; do
    CUDA_VISIBLE_DEVICES=1 "$gb" run "$@" --rounds 1 --out "$work/load-$name.json" --force >/dev/null 2>&1 &
    echo $! >"$work/load-$name.pid"
    wait $! || sleep 1  # a failing load does not spin
  done
}
start_load() {
  touch "$work/load.on"
  load_loop pcie --pair ch01/pinned_transfers --axis size_mib=1024 &
  load_loops+=($!)
  load_loop dram --pair ch02/vectorized_access --axis n=268435459 &
  load_loops+=($!)
  sleep 3  # both loads running before the tasks start
}
stop_load() {
  rm -f "$work/load.on"
  local f
  for f in "$work"/load-*.pid; do [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
  local p
  for p in "${load_loops[@]}"; do wait "$p" 2>/dev/null; done
  load_loops=()
}

use_slurm=1
for p in slurmctld slurmd munged mungekey sbatch squeue scontrol sinfo; do command -v "$p" >/dev/null || use_slurm=0; done
if [ "$use_slurm" -eq 1 ]; then
  slurm_dir=$work/slurm
  mkdir -p "$slurm_dir"
  if "$repo/tests/slurm/slurm-up.sh" "$slurm_dir"; then
    export SLURM_CONF=$slurm_dir/slurm.conf
  else
    echo "fleet-check: the single-node Slurm did not start; the tasks run with Slurm's variables set by hand"
    use_slurm=0
  fi
else
  echo "fleet-check: Slurm is not installed; the tasks run with Slurm's variables set by hand"
fi

# fleet_job NAME HAND_ID: one task per GPU; prints the job id (Slurm's, or HAND_ID without Slurm)
# on the last line.
fleet_job() {
  local name=$1 hand_job=$2
  if [ "$use_slurm" -eq 1 ]; then
    "$gb" fleet submit --store "$store" --gpus-per-node 2 --time 00:02:00 --job-name "fleet-check-$name" \
      -- "${run_args[@]}" >"$work/submit.txt" 2>&1
    cat "$work/submit.txt" >&2
    local job
    job=$(sed -n 's/^fleet: submitted job \([0-9]*\) .*/\1/p' "$work/submit.txt")
    [ -n "$job" ] || return 1
    for _ in $(seq 1 60); do
      squeue -h -j "$job" 2>/dev/null | grep -q . || break
      sleep 0.5
    done
    squeue -h -j "$job" 2>/dev/null | grep -q . && { scancel "$job"; echo "fleet-check: job $job ran past 30 s; cancelled" >&2; }
    cp "$store/slurm-$job.out" "$out/slurm-$job-$name.out" 2>/dev/null
    echo "$job"
  else
    local host
    host=$(hostname -s)
    local env=("SLURM_JOB_ID=$hand_job" SLURM_NTASKS=2 "SLURMD_NODENAME=$host" "SLURM_JOB_NODELIST=$host"
      SLURM_TASKS_PER_NODE=2)
    env -u SLURM_ARRAY_JOB_ID -u SLURM_ARRAY_TASK_ID "${env[@]}" SLURM_PROCID=0 "$gb" fleet begin --store "$store" >&2
    local pids=() t
    for t in 0 1; do
      env -u SLURM_ARRAY_JOB_ID -u SLURM_ARRAY_TASK_ID "${env[@]}" SLURM_PROCID=$t CUDA_VISIBLE_DEVICES=$t \
        timeout 30 "$gb" fleet task --store "$store" -- "${run_args[@]}" >&2 &
      pids+=($!)
    done
    for t in "${pids[@]}"; do wait "$t"; done
    echo "$hand_job"
  fi
}

# report JOB NAME: the fleet report, and exit 1 unless both tasks stored a profile.
report() {
  "$gb" fleet report --store "$store" --job "$1" --html "$out/fleet-$2.html" | tee "$out/fleet-$2.txt" || return 1
  local n
  n=$(find "$store/job-$1" -name 'task-*.json' ! -name '*.failed.json' 2>/dev/null | wc -l)
  [ "$n" -eq 2 ] || { echo "fleet-check: job $1 stored $n profiles, not 2"; return 1; }
}

step "fleet job, both GPUs idle: ${run_args[*]}"
job=$(fleet_job idle 1001 | tail -n 1)
report "$job" idle
result $? "fleet job $job (idle), report in fleet-idle.txt"

step "fleet job, with a contention load on GPU 1 (task 1)"
start_load
job=$(fleet_job loaded 1002 | tail -n 1)
stop_load
report "$job" loaded
result $? "fleet job $job (GPU 1 loaded), report in fleet-loaded.txt"
mkdir -p "$out/store"
cp -r "$store"/job-* "$out/store/" 2>/dev/null

echo
echo "fleet-check: $SECONDS s; results in $out"
exit "$failed"
