#!/usr/bin/env bash
# ncclAllReduce's bus bandwidth at 1 GiB with one process per GPU, as nccl-tests' all_reduce_perf
# measures it under MPI and as `gpubench collective` does for ch08/allreduce_ranks, side by side
# (the bar: within 5%; docs/fleet.md, "Collectives, one process per GPU").
#
#   scripts/analysis/nccl-tests-mpi-compare.sh ALL_REDUCE_PERF [GPUBENCH] [NP]
#
# ALL_REDUCE_PERF is nccl-tests' binary built with MPI=1 against the NCCL gpubench links
# (`ldd GPUBENCH | grep nccl` names it), e.g.
#   make -C NCCL_TESTS_DIR MPI=1 MPI_HOME=/usr/lib/x86_64-linux-gnu/openmpi CUDA_HOME=/usr/local/cuda NCCL_HOME=DIR -j
# (scripts/analysis/nccl-tests-compare.sh says how to give the nvidia-nccl-cu13 wheel an NCCL_HOME).
# GPUBENCH defaults to ./build-gpu/gpubench, NP (processes, one GPU each) to 2. Both run with
# NCCL_NVLS_ENABLE=0 (NVLink multicast off: on shared hosts it can take every GPU of the host down).
# nccl-tests reports the mean of 20 back-to-back iterations after a barrier; gpubench the median of
# single calls, each after a barrier, the slowest rank's time (at 1 GiB the difference is launch
# latency, well below 1%).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/analysis/nccl-tests-mpi-compare.sh ALL_REDUCE_PERF [GPUBENCH] [NP]" >&2; exit 2; }
perf=$1
gb=${2:-./build-gpu/gpubench}
np=${3:-2}
[ -x "$perf" ] || { echo "nccl-tests-mpi-compare: $perf is not an executable all_reduce_perf" >&2; exit 2; }
[ -x "$gb" ] || { echo "nccl-tests-mpi-compare: $gb is not an executable gpubench" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "nccl-tests-mpi-compare: mpirun not found (Debian: openmpi-bin)" >&2; exit 2; }
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== nccl-tests: mpirun -np $np $perf -b 1G -e 1G -g 1" >&2
mpirun "${root[@]}" -np "$np" -x NCCL_NVLS_ENABLE=0 "$perf" -b 1G -e 1G -g 1 | tee "$out/nccl-tests.txt" >&2
echo "== gpubench: mpirun -np $np $gb collective --pair allreduce_ranks --axis bytes=1073741824" >&2
mpirun "${root[@]}" -np "$np" -x NCCL_NVLS_ENABLE=0 "$gb" collective --pair allreduce_ranks --axis bytes=1073741824 \
  --out "$out/ranks.json" >&2

# all_reduce_perf's out-of-place busbw (column 8) at 1073741824 bytes.
theirs=$(awk '!/^#/ && $1 == 1073741824 { print $8; exit }' "$out/nccl-tests.txt")
ours=$(python3 - "$out/ranks.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
for r in p["records"]:
    if r["pair"] == "allreduce_ranks" and r["variant"] == "nccl" and r["status"] == "passed":
        print("%.2f" % (r["throughput"]["bytes_per_s"] / 1e9))
        break
PY
)
[ -n "$theirs" ] && [ -n "$ours" ] || { echo "nccl-tests-mpi-compare: a figure is missing (nccl-tests '$theirs', gpubench '$ours')" >&2; exit 1; }
awk -v t="$theirs" -v o="$ours" -v np="$np" 'BEGIN {
  printf "busbw at 1 GiB, %d processes: nccl-tests %.2f GB/s, gpubench %.2f GB/s, gpubench/nccl-tests %.3f\n", np, t, o, o / t }'
