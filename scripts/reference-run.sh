#!/usr/bin/env bash
# Makes reference profiles on a GPU machine (profiles/README.md records each use):
#   scripts/reference-run.sh NAME [RUNS]
# builds for sm_90, runs every test, then `gpubench run --chapter 1` RUNS times (default 4):
# $OUT/NAME-ch01.json is the reference, NAME-ch01-r2.json ... are history runs for compare's
# drift estimate, and the last run is compared against the reference with the others as history.
set -uo pipefail
name=${1:?usage: reference-run.sh NAME [RUNS]}
runs=${2:-4}
out=${OUT:-device-out}
mkdir -p "$out"
exec > >(tee -a "$out/log.txt") 2>&1
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUBENCH_CUDA_ARCHS=90 \
  ${GPUBENCH_GIT_SHA:+-DGPUBENCH_GIT_SHA=$GPUBENCH_GIT_SHA} >/dev/null || exit 1
cmake --build build-gpu -j 16 >/tmp/build.txt 2>&1 || { tail -40 /tmp/build.txt; exit 1; }
gb=./build-gpu/gpubench
ctest --test-dir build-gpu --output-on-failure -j 4 >"$out/ctest.txt" 2>&1; echo "ctest rc=$?"; tail -4 "$out/ctest.txt"
$gb device
t0=$(date +%s%N)
$gb run --chapter 1 --out "$out/$name-ch01.json"; echo "reference run rc=$? wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms"
hist=()
for i in $(seq 2 "$runs"); do
  $gb run --chapter 1 --quiet --out "$out/$name-ch01-r$i.json"; echo "run $i rc=$?"
  hist+=("$out/$name-ch01-r$i.json")
done
last=${hist[-1]}; unset 'hist[-1]'
echo "== compare reference vs run $runs, without history"
$gb compare "$out/$name-ch01.json" "$last" -q; echo "compare rc=$?"
echo "== with ${#hist[@]} history runs"
$gb compare "$out/$name-ch01.json" "$last" --history "${hist[@]}" --markdown "$out/$name-compare.md" -q
echo "compare rc=$?"
