#!/usr/bin/env bash
# One full check on a GPU machine: build, every test (GPU ones included), chapter 1 twice (for
# repeatability) and once with --quick (wall time), the error paths, an Nsight Compute
# cross-check of one >=100 µs kernel, and compute-sanitizer memcheck over chapter 1's kernels.
# Results land in $OUT (or ./device-out). Usage, from the repo root on the GPU machine:
#   scripts/device-check.sh            (builds for sm_90 unless GPUBENCH_CUDA_ARCHS is set)
set -uo pipefail
out=${OUT:-device-out}
mkdir -p "$out"
log="$out/log.txt"
arch=${GPUBENCH_CUDA_ARCHS:-90}
exec > >(tee -a "$log") 2>&1

step() { printf '\n==== %s ====\n' "$*"; }
timed() { local t0=$(date +%s%N); "$@"; local rc=$?; local ms=$(( ($(date +%s%N) - t0) / 1000000 )); echo "rc=$rc wall=${ms}ms: $*"; return $rc; }

step "build (sm_$arch)"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUBENCH_CUDA_ARCHS="$arch" ${GPUBENCH_GIT_SHA:+-DGPUBENCH_GIT_SHA=$GPUBENCH_GIT_SHA} >/dev/null || exit 1
timed cmake --build build-gpu -j 16 >"$out/build.txt" 2>&1 || { tail -50 "$out/build.txt"; exit 1; }
gb=./build-gpu/gpubench

step "tests (CPU and GPU)"
timed ctest --test-dir build-gpu --output-on-failure -j 4 >"$out/ctest.txt" 2>&1; tail -6 "$out/ctest.txt"
grep -B2 -A8 "Failure" "$out/ctest.txt" | head -60

step "device"
$gb device

step "run --chapter 1 (default settings), twice"
timed $gb run --chapter 1 --out "$out/run1.json"
timed $gb run --chapter 1 --quiet --out "$out/run2.json"
step "run --chapter 1 --quick"
timed $gb run --chapter 1 --quick --quiet --out "$out/quick.json"
scripts/median_spread.py "$out/run1.json" "$out/run2.json"

step "error paths"
$gb run --chapter 1 --pair pinned_transfers --axis dir=h2d --axis size_mib=67108864,1 --quick --out /tmp/oom.json; echo "oom rc=$?"
$gb run --chapter 1 --out /proc/nope/x.json; echo "unwritable rc=$?"
CUDA_VISIBLE_DEVICES= $gb run --chapter 1; echo "no-device rc=$?"

if [ -z "${SKIP_PROFILERS:-}" ]; then
step "ncu cross-check: batched_gemm at m=8192 (each kernel's gpu__time_duration)"
if command -v ncu >/dev/null; then
  timeout 300 ncu --clock-control none --nvtx --csv --page raw --metrics gpu__time_duration.sum \
    $gb run --chapter 1 --pair batched_gemm --axis m=8192 --profile --out /tmp/ncu-run.json >"$out/ncu.csv" 2>"$out/ncu.err"
  echo "ncu rc=$? ($(wc -l <"$out/ncu.csv") lines)"; tail -3 "$out/ncu.err"
fi

step "compute-sanitizer memcheck, chapter 1 in profile mode at small sizes"
if command -v compute-sanitizer >/dev/null; then
  timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 $gb run --chapter 1 --profile \
    --axis m=32 --axis kernels=100 --axis size_mib=1 --out /tmp/memcheck.json 2>&1 | tail -6
  echo "memcheck rc=${PIPESTATUS[0]}"
fi
fi
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
