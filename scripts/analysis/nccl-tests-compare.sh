#!/usr/bin/env bash
# ncclAllReduce's bus bandwidth, as nccl-tests' all_reduce_perf measures it and as gpubench's
# ch08/allreduce does, side by side at the sizes both ran (the bar: within 5% at 1 GiB).
#
#   scripts/analysis/nccl-tests-compare.sh ALL_REDUCE_PERF [GPUBENCH] [-- extra gpubench run options]
#
# ALL_REDUCE_PERF is nccl-tests' binary, built against the same NCCL gpubench links
# (`ldd build-gpu/gpubench | grep nccl` names it). The GPU machines cannot download, so bring a
# checkout of NVIDIA's nccl-tests along (an ignored folder the device run carries) and build it there with its
# own Makefile. The nvidia-nccl-cu13 wheel has no unversioned libnccl.so for its -lnccl, so point
# it at a folder of links:
#   w=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])')
#   mkdir -p /tmp/nccl/lib && ln -sf "$w/include" /tmp/nccl/include && ln -sf "$w/lib/libnccl.so.2" /tmp/nccl/lib/libnccl.so
#   make -C NCCL_TESTS_DIR MPI=0 CUDA_HOME=/usr/local/cuda NCCL_HOME=/tmp/nccl -j
# and run this script with LD_LIBRARY_PATH=$w/lib. GPUBENCH defaults to ./build-gpu/gpubench
# (`scripts/gpu.sh build` makes it).
#
# Both run with NCCL_NVLS_ENABLE=0 (NVLink multicast off: on shared hosts it can take every GPU of
# the host down) on GPUs 0 and 1: all_reduce_perf -b 8 -e 1G -f 2 -g 2 (one process, one thread,
# two GPUs, as gpubench's pair drives them), gpubench at each power-of-two size from 8 B to 1 GiB.
# nccl-tests defines algbw = size / time and busbw = algbw * 2(n-1)/n (n = 2: busbw = algbw);
# gpubench's GB/s for ch08/allreduce/nccl is that algbw (its work model's bytes are the buffer's).
# nccl-tests reports the mean of 20 back-to-back iterations; gpubench the median of cold, single
# calls between a barrier and the slowest GPU's end, so small sizes differ by launch latency.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/analysis/nccl-tests-compare.sh ALL_REDUCE_PERF [GPUBENCH] [-- run options]" >&2; exit 2; }
perf=$1; shift
gb=./build-gpu/gpubench
if [ $# -gt 0 ] && [ "$1" != -- ]; then gb=$1; shift; fi
[ "${1:-}" = -- ] && shift
[ -x "$perf" ] || { echo "nccl-tests-compare: $perf is not an executable all_reduce_perf" >&2; exit 2; }
[ -x "$gb" ] || { echo "nccl-tests-compare: $gb is not an executable gpubench (build it, or pass its path)" >&2; exit 2; }
export NCCL_NVLS_ENABLE=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== nccl-tests: $perf -b 8 -e 1G -f 2 -g 2" >&2
CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0,1} "$perf" -b 8 -e 1G -f 2 -g 2 | tee "$out/nccl-tests.txt" >&2

sizes=$(awk '!/^#/ && NF >= 12 && $1 ~ /^[0-9]+$/ { printf "%s%s", sep, $1; sep = "," }' "$out/nccl-tests.txt")
[ -n "$sizes" ] || { echo "nccl-tests-compare: no result rows in all_reduce_perf's output" >&2; exit 1; }
echo "== gpubench: run --pair ch08/allreduce --axis bytes=$sizes --variant nccl" >&2
"$gb" run --pair ch08/allreduce --axis "bytes=$sizes" --variant nccl --device 0 --quiet --out "$out/gpubench.json" "$@" >&2

python3 - "$out/nccl-tests.txt" "$out/gpubench.json" <<'PY'
import json, sys
n = 2  # GPUs: busbw = algbw * 2(n-1)/n
tests = {}
for line in open(sys.argv[1]):
    f = line.split()
    if line.startswith("#") or len(f) < 12 or not f[0].isdigit():
        continue
    tests[int(f[0])] = (float(f[7]), float(f[11]))  # busbw out-of-place, in-place (GB/s = 1e9 B/s)
ours = {}
for r in json.load(open(sys.argv[2]))["records"]:
    if r["pair"] == "allreduce" and r["variant"] == "nccl" and r["status"] == "passed":
        ours[int(r["size"]["bytes"])] = r["throughput"]["bytes_per_s"] * 2 * (n - 1) / n / 1e9
print(f"{'bytes':>12} {'nccl-tests busbw':>17} {'(in-place)':>11} {'gpubench busbw':>15} {'gpubench/nccl-tests':>20}")
for size in sorted(tests):
    oop, inp = tests[size]
    g = ours.get(size)
    ratio = f"{g / oop:.3f}" if g is not None and oop > 0 else "-"
    gtxt = f"{g:.2f}" if g is not None else "-"
    print(f"{size:>12} {oop:>17.2f} {inp:>11.2f} {gtxt:>15} {ratio:>20}")
big = max(tests)
if big in ours and tests[big][0] > 0:
    r = ours[big] / tests[big][0]
    print(f"at {big} B: gpubench is {100 * (r - 1):+.1f}% of nccl-tests' out-of-place busbw "
          f"({'within' if abs(r - 1) <= 0.05 else 'OUTSIDE'} the 5% bar)")
PY
