#!/usr/bin/env bash
# The GPU measurements the open work still needs, as named steps, so that a short device session
# runs exactly what it needs in one or a few calls. Run from the repo root on a GPU machine; every
# result lands under $OUT (default ./gpu-validation), each step's console output in STEP.txt.
#
# usage: scripts/gpu-validation.sh STEP...
#   build        configure and build build-gpu/ (GPUBENCH_CUDA_ARCHS, default 90; NCCL if found;
#                BUILD_TARGET=gpubench builds the driver alone, without the tests)
#   tests        ctest, GPU tests included (every registered pair at its smallest size)
#   sanitize     scripts/sanitize.sh, one chapter per process in parallel (SANITIZE_CHAPTERS,
#                default "1 2 3 4 5 6 7 8"), or one pair per process (SANITIZE_PAIRS, ids such
#                as ch05/bias_in_place); each sanitizer run at most SANITIZE_TIMEOUT s
#                (default 240); SANITIZE_ARGS, e.g. "--per-pair --tools racecheck,initcheck" (lists
#                with commas: the words are split on spaces), passed on;
#                prints every summary line
#   ceilings     gpubench device --ceilings, timed (the ceilings run on the engine's schedule)
#   metricsN     run --chapter N --metrics (METRICS=SETS overrides the default set), then
#                roofline --format table; profile kept as profiles/<gpu>-ch0N-metrics.json. metrics2:
#                the aos/soa placement; METRICS=memory,sm__inst_executed.sum,smsp__inst_executed_op_ldgsts.sum
#                metrics7: tma_copy's issued load instructions
#   flush        DRAM writes of records measured right after the cold-cache flush, against L2's size
#   confirm      chapter 3 four times, each later run with --confirm against the first: how many
#                records were re-measured and what compare says before and after
#   quick        wall time of run --chapter 1 --quick
#   tuning       chapter 6 twice and once with --metrics (profiles kept as profiles/<gpu>-ch06*.json),
#                then scripts/tuning-report.py over every ch06 profile in $OUT/profiles: the tuned
#                configuration per size, its stability (the 3% bar) and, once both GPUs ran, H100
#                against H200
#   chN          run --chapter N with default options (a reference profile), N = 1..9
#   pack         everything under OUT as one gv-results.tgz in PACK_TO, since the device tool
#                returns at most 8 files: PACK_TO=$OUT OUT=/tmp/gv scripts/gpu-validation.sh ... pack
# Environment: OUT, GB (default build-gpu/gpubench), SANITIZE_CHAPTERS, GPUBENCH_CUDA_ARCHS,
# BUILD_TARGET, GPUBENCH_GIT_SHA (the commit to record in profiles; pass it from the machine
# that has the repository).
# Every gpubench process gets NCCL_NVLS_ENABLE=0 (no NVLink multicast on shared hosts).
set -uo pipefail
export NCCL_NVLS_ENABLE=0
out=${OUT:-gpu-validation}
gb=${GB:-build-gpu/gpubench}
mkdir -p "$out/profiles"

usage() { sed -n '2,/^[^#]/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; }
[ $# -gt 0 ] || { usage >&2; exit 2; }
gpu_tag() { "$gb" device 2>/dev/null | sed -n 's/.*NVIDIA \(H[0-9]*\).*/\1/p' | head -1 | tr 'A-Z' 'a-z'; }
timed() { local t0=$SECONDS; "$@"; local rc=$?; echo "rc=$rc wall=$((SECONDS - t0))s: $*"; return $rc; }

step_build() {
  # The device's copy of the tree may carry a stale .git (the session's first commit), so the
  # commit the profiles record is passed in: GPUBENCH_GIT_SHA=$(git rev-parse --short=12 HEAD).
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUBENCH_CUDA_ARCHS="${GPUBENCH_CUDA_ARCHS:-90}" \
    ${GPUBENCH_GIT_SHA:+-DGPUBENCH_GIT_SHA="$GPUBENCH_GIT_SHA"} >/dev/null &&
    timed cmake --build build-gpu -j "$(nproc)" ${BUILD_TARGET:+--target "$BUILD_TARGET"} > "$out/build-log.txt" 2>&1
  local rc=$?
  tail -3 "$out/build-log.txt"
  return $rc
}

step_tests() {
  timed ctest --test-dir build-gpu --output-on-failure -j 2 > "$out/ctest-log.txt" 2>&1
  tail -8 "$out/ctest-log.txt"
  grep -B2 -A12 "Failure" "$out/ctest-log.txt" | head -80
}

step_sanitize() {
  # One sanitize.sh process per chapter, or per pair with SANITIZE_PAIRS="ch05/a ch05/b", in parallel.
  local u units pids=()
  units=${SANITIZE_PAIRS:-${SANITIZE_CHAPTERS:-1 2 3 4 5 6 7 8}}
  for u in $units; do
    local sel=(--chapters "$u")
    case "$u" in */*) sel=(--pair "$u") ;; esac
    # shellcheck disable=SC2086  # SANITIZE_ARGS is a list of words
    GB="$gb" SANITIZE_TIMEOUT=${SANITIZE_TIMEOUT:-240} bash scripts/sanitize.sh "${sel[@]}" ${SANITIZE_ARGS:-} \
      --out "$out/sanitize/${u//\//-}" > "$out/sanitize-${u//\//-}.txt" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  for u in $units; do echo "== $u"; cat "$out/sanitize-${u//\//-}.txt"; done
  rm -f "$out"/sanitize/*/*.json
}

step_ceilings() { timed "$gb" device --ceilings; }

step_metrics() {
  local n=$1 p
  p="$out/profiles/$(gpu_tag)-ch0$n-metrics.json"
  timed "$gb" run --chapter "$n" --metrics${METRICS:+="$METRICS"} --quiet --out "$p"
  "$gb" roofline --from "$p" --format table
}

step_flush() {
  # Twice: one CUPTI range per variant (its push-to-pop span includes the launch and the
  # synchronize), then --metrics-per-kernel (one range per kernel, as ncu counts).
  local p="$out/flush.json" pk="$out/flush-per-kernel.json"
  timed "$gb" run --pair reduction --pair vectorized_access --pair softmax_fusion --quick --quiet \
    --metrics=dram__bytes_write.sum,dram__bytes_read.sum --out "$p"
  timed "$gb" run --pair reduction --pair vectorized_access --pair softmax_fusion --quick --quiet \
    --metrics=dram__bytes_write.sum,dram__bytes_read.sum --metrics-per-kernel --out "$pk"
  python3 - "$p" "$pk" <<'PY'
import json, sys
for path in sys.argv[1:]:
    d = json.load(open(path))
    l2 = d["provenance"]["device"].get("l2_bytes", 0)
    print(f"== {path}: L2 {l2/2**20:.0f} MiB; 1% of it = {l2*0.01/2**20:.2f} MiB")
    for r in d["records"]:
        m = r.get("metrics") or {}
        if "dram_bytes_write" in m.get("derived", {}):
            print(f'{r["id"]:70s} written {m["derived"]["dram_bytes_write"]/2**20:10.3f} MiB'
                  f'   read {m["derived"].get("dram_bytes_read", 0)/2**20:10.3f} MiB')
        for k in m.get("kernels", []):
            v = k["values"]
            print(f'    kernel {k["name"][:60]:60s} written {v.get("dram__bytes_write.sum", 0)/2**20:10.3f} MiB'
                  f'   read {v.get("dram__bytes_read.sum", 0)/2**20:10.3f} MiB')
PY
}

step_confirm() {
  local base="$out/confirm-base.json" k
  timed "$gb" run --chapter 3 --quiet --out "$base"
  for k in 1 2 3; do
    timed "$gb" run --chapter 3 --quiet --confirm "$base" --out "$out/confirm-$k.json"
    "$gb" compare "$base" "$out/confirm-$k.json" > "$out/confirm-$k-compare.txt"; echo "compare exit $?"
    tail -3 "$out/confirm-$k-compare.txt"
  done
}

step_tuning() {
  local tag
  tag=$(gpu_tag)
  timed "$gb" run --chapter 6 --quiet --out "$out/profiles/$tag-ch06.json"
  timed "$gb" run --chapter 6 --quiet --out "$out/profiles/$tag-ch06-r2.json"
  timed "$gb" run --chapter 6 --quiet --metrics --out "$out/profiles/$tag-ch06-metrics.json"
  python3 scripts/tuning-report.py "$out"/profiles/*-ch06.json "$out"/profiles/*-ch06-r2.json
}

step_quick() { timed "$gb" run --chapter 1 --quick --quiet --out "$out/quick-ch01.json"; }

step_pack() {
  local to=${PACK_TO:-}
  [ -n "$to" ] || { echo "pack: set PACK_TO to the folder the archive goes to" >&2; return 2; }
  mkdir -p "$to" && tar czf "$to/gv-results.tgz" -C "$(dirname "$out")" "$(basename "$out")" && ls -l "$to/gv-results.tgz"
}

step_chapter() {
  local n=$1
  timed "$gb" run --chapter "$n" --quiet --out "$out/profiles/$(gpu_tag)-ch0$n.json"
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv,noheader 2>/dev/null
rc=0
for s in "$@"; do
  echo; echo "==== $s ($(date -u +%H:%M:%S))"
  case "$s" in
    build|tests|sanitize|ceilings|flush|confirm|quick|tuning) "step_$s" 2>&1 | tee "$out/$s.txt" ;;
    metrics[1-9]) step_metrics "${s#metrics}" 2>&1 | tee "$out/$s.txt" ;;
    pack) step_pack ;;
    ch[1-9]) step_chapter "${s#ch}" 2>&1 | tee "$out/$s.txt" ;;
    *) echo "gpu-validation.sh: unknown step '$s'" >&2; usage >&2; exit 2 ;;
  esac
  [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
done
exit $rc
