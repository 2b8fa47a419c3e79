#!/usr/bin/env bash
# Identical code, separate processes: the runs that tell whether `compare` cries wolf, and that
# the between-process term of compare's noise model is fitted on (docs/design-notes.md, "Compare").
#   scripts/multi-process-runs.sh RUNS CHAPTER... [-- extra run options]
# writes $OUT/runs/chNN-rK.json (K = 1..RUNS; the chapters alternate inside each K, so that every
# chapter's runs are minutes apart, as a CI job's base and new are) and packs them into
# $OUT/runs.tar.gz. Then, anywhere: scripts/compare-all-pairs.sh DIR prints every ordered pair's
# exit code and verdict counts. GB: the gpubench binary (default ./build-gpu/gpubench).
set -uo pipefail
runs=${1:?usage: multi-process-runs.sh RUNS CHAPTER... [-- options]}; shift
chapters=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do chapters+=("$1"); shift; done
[ "${1:-}" = -- ] && shift
gb=${GB:-./build-gpu/gpubench}
out=${OUT:-device-out}
mkdir -p "$out/runs"
for k in $(seq 1 "$runs"); do
  for c in "${chapters[@]}"; do
    f=$(printf '%s/runs/ch%02d-r%d.json' "$out" "$c" "$k")
    t0=$(date +%s%N)
    "$gb" run --chapter "$c" --quiet "$@" --out "$f" >"$f.txt" 2>&1
    echo "ch$c run $k rc=$? wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms"
  done
done
tar -C "$out" -czf "$out/runs.tar.gz" runs && rm -rf "$out/runs"
