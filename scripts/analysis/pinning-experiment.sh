#!/usr/bin/env bash
# Does pinning gpubench to one CPU make host-driven timings repeatable across processes?
# Three runs as-is, three under `taskset -c 3`, of the host-bound pairs; spread per record.
#   usage: scripts/analysis/pinning-experiment.sh      (from the repo root, after scripts/gpu.sh build)
# OUT: folder for the profiles (default gpu-out/pinning); GB: gpubench (default build-gpu/gpubench).
set -uo pipefail
out=${OUT:-gpu-out}/pinning
gb=${GB:-build-gpu/gpubench}
[ -x "$gb" ] || { echo "pinning-experiment: $gb is missing; run 'scripts/gpu.sh build' first" >&2; exit 2; }
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
sel=(--chapter 1 --pair cuda_graphs --pair pinned_transfers --axis size_mib=16,256 --quiet)
for i in 1 2 3; do "$gb" run "${sel[@]}" --out "$out/free$i.json" >/dev/null; done
for i in 1 2 3; do taskset -c 3 "$gb" run "${sel[@]}" --out "$out/pin$i.json" >/dev/null; done
echo "== unpinned"; python3 scripts/analysis/median-spread.py "$out"/free{1,2,3}.json
echo "== taskset -c 3"; python3 scripts/analysis/median-spread.py "$out"/pin{1,2,3}.json
