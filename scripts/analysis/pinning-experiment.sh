#!/usr/bin/env bash
# Does pinning gpubench to one CPU make host-driven timings repeatable across processes?
# Three runs as-is, three under `taskset -c 3`, of the host-bound pairs; spread per record.
set -uo pipefail
out=${OUT:-device-out}; gb=./build-gpu/gpubench
sel=(--chapter 1 --pair cuda_graphs --pair pinned_transfers --axis size_mib=16,256 --quiet)
for i in 1 2 3; do $gb run "${sel[@]}" --out "$out/free$i.json" >/dev/null; done
for i in 1 2 3; do taskset -c 3 $gb run "${sel[@]}" --out "/tmp/pin$i.json" >/dev/null; done
echo "== unpinned"; scripts/median_spread.py "$out"/free{1,2,3}.json
echo "== taskset -c 3"; scripts/median_spread.py /tmp/pin{1,2,3}.json
