#!/usr/bin/env bash
# A binary without code for this GPU must fail loudly, not time an empty stream: build for
# sm_80 only (SASS, no PTX to JIT), run on a Hopper GPU, expect exit 1 and the rebuild hint.
# It builds its own build-sm80/ on purpose: the wrong architecture is what it tests.
#   usage: scripts/analysis/no-kernel-image-check.sh      (from the repo root, on a Hopper GPU)
set -uo pipefail
cmake -S . -B build-sm80 -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUBENCH_CUDA_ARCHS=80-real -DGPUBENCH_BUILD_TESTS=OFF >/dev/null || exit 1
cmake --build build-sm80 -j "$(nproc)" --target gpubench >/dev/null 2>&1 || { echo "sm80 build failed"; exit 1; }
NCCL_NVLS_ENABLE=0 ./build-sm80/gpubench run --chapter 1 --pair cuda_graphs --quick --out /tmp/sm80.json 2>&1 | tail -6
echo "sm80 binary on this GPU: rc=${PIPESTATUS[0]}"
