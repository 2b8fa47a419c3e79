#!/usr/bin/env bash
# The one entry point on a GPU machine: named steps, run in the order given,
# sharing one build in build-gpu/. Run from the repo root. Results land under
# $OUT (default ./gpu-out), each step's console output also in $OUT/STEP.txt.
# Only `build` configures and builds; every other step uses build-gpu/ as it is,
# so put `build` first in a fresh checkout.
#
# usage: scripts/gpu.sh STEP [STEP...]
#   build      configure and build build-gpu/ (GPUBENCH_CUDA_ARCHS, default 90;
#              NCCL if found; BUILD_TARGET=gpubench: the driver alone)
#   tests      ctest in build-gpu/, GPU tests included (each pair, smallest size)
#   check      one look at the device, in $OUT/check/: `gpubench device`,
#              chapter 1 twice (its run-to-run spread) and once with --quick,
#              the error paths (out of memory, unwritable output, no device),
#              Nsight Compute on one >= 100 us kernel and memcheck over
#              chapter 1 (SKIP_PROFILERS=1 leaves out these two)
#   reference NAME [RUNS]
#              chapter 1 RUNS times (default 4): $OUT/profiles/NAME-ch01.json,
#              then NAME-ch01-r2.json ... as history for compare's drift
#              estimate; the last run is compared with the first, without and
#              with the others as history
#   processes RUNS CHAPTER... [-- RUN OPTIONS... --]
#              identical code in separate processes: RUNS runs of
#              `run --chapter C` per chapter, the chapters alternating inside
#              each run (each chapter's runs minutes apart, as a CI job's base
#              and new are), as $OUT/runs/chNN-rK.json (console: .json.txt);
#              options between `--` and `--` (or the end) go to every run.
#              scripts/compare-all-pairs.sh and
#              scripts/analysis/fit-noise-model.py read $OUT/runs
#   sanitize   scripts/sanitize.sh, one chapter per process in parallel
#              (SANITIZE_CHAPTERS, default "1 2 3 4 5 6 7 8"), or one pair per
#              process (SANITIZE_PAIRS, ids such as ch05/bias_in_place); each
#              sanitizer run at most SANITIZE_TIMEOUT s (default 240);
#              SANITIZE_ARGS (words split on spaces, lists with commas) passed
#              on, e.g. "--per-pair --tools racecheck,initcheck"
#   ceilings   gpubench device --ceilings, timed
#   metricsN   run --chapter N --metrics (METRICS=SETS for other sets), then
#              roofline --format table; $OUT/profiles/<gpu>-ch0N-metrics.json.
#              metrics2 with METRICS=memory,sm__inst_executed.sum,
#              smsp__inst_executed_op_ldgsts.sum: the aos/soa placement;
#              metrics7: tma_copy's issued load instructions
#   flush      DRAM writes of records measured right after the cold-cache
#              flush, against L2's size
#   confirm    chapter 3 four times, each later run with --confirm against the
#              first: records re-measured, compare before and after
#   quick      wall time of run --chapter 1 --quick
#   tuning     chapter 6 twice and once with --metrics
#              ($OUT/profiles/<gpu>-ch06*.json), then
#              scripts/analysis/tuning-report.py over them: the tuned
#              configuration per size, its stability (the 3% bar) and, once
#              both GPUs ran, H100 against H200
#   chN        run --chapter N, default options: $OUT/profiles/<gpu>-ch0N.json
#   roofs      a first run's roofs, in $OUT/roofs/: chapter 5 with an empty
#              ceilings cache (theoretical ceilings, as before `device
#              --ceilings`) at COLUMNS=80, its roofline table at 80 and 120
#              columns, its markdown export and `device`; then
#              scripts/analysis/first-run-roofs.py: each record against its
#              own precision's roof, every console line within its width
#   pack       everything under OUT as PACK_TO/gv-results.tgz, for a device
#              tool that returns few files:
#              PACK_TO=$OUT OUT=/tmp/gv scripts/gpu.sh ... pack
# Examples: scripts/gpu.sh build tests check
#           scripts/gpu.sh build reference h100 5
#           scripts/gpu.sh build processes 4 1 2 3 4 5
# Environment: OUT, GB (default build-gpu/gpubench), GPUBENCH_CUDA_ARCHS,
# BUILD_TARGET, GPUBENCH_GIT_SHA (the commit profiles record; pass it from the
# machine that has the repository: $(git rev-parse --short=12 HEAD)).
# Every gpubench process gets NCCL_NVLS_ENABLE=0 (no NVLink multicast on
# shared hosts).
# Exit codes: 0 every step succeeded; 1 a step failed (a failed build stops
# the rest); 2 usage, or a step that needs build-gpu/ when it is missing.
set -uo pipefail
export NCCL_NVLS_ENABLE=0
out=${OUT:-gpu-out}
gb=${GB:-build-gpu/gpubench}

usage() { sed -n '2,/^[^#]/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; }
die_usage() { echo "gpu.sh: $*" >&2; echo >&2; usage >&2; exit 2; }
is_number() { case "$1" in '' | *[!0-9]*) return 1 ;; *) return 0 ;; esac; }

# --- Parse every step first, so that a typo fails before any GPU time is spent. --------------
[ $# -gt 0 ] || { usage >&2; exit 2; }
case "$1" in -h | --help) usage; exit 0 ;; esac
steps=()  # one entry per step: its name and arguments, separated by the unit separator
sep=$'\x1f'
built=0   # a `build` step comes before the current one
while [ $# -gt 0 ]; do
  s=$1; shift
  args=()
  case "$s" in
    build) built=1 ;;
    tests | check | sanitize | ceilings | flush | confirm | quick | tuning | roofs | pack) ;;
    metrics[1-9] | ch[1-9]) ;;
    reference)
      [ $# -gt 0 ] && [ -n "$1" ] && [[ "$1" =~ ^[A-Za-z0-9_.-]+$ ]] ||
        die_usage "reference needs a NAME (letters, digits, '_', '.', '-'), e.g. 'reference h100 5'"
      args+=("$1"); shift
      if [ $# -gt 0 ] && is_number "$1"; then args+=("$1"); shift; else args+=(4); fi
      [ "${args[1]}" -ge 1 ] || die_usage "reference: RUNS must be at least 1, got '${args[1]}'"
      ;;
    processes)
      [ $# -gt 0 ] && is_number "$1" && [ "$1" -ge 1 ] ||
        die_usage "processes needs RUNS (a number >= 1) and then chapters, e.g. 'processes 4 1 2 3'"
      args+=("$1"); shift
      n=0
      while [ $# -gt 0 ] && is_number "$1"; do args+=("$1"); shift; n=$((n + 1)); done
      [ "$n" -gt 0 ] || die_usage "processes needs at least one chapter after RUNS, e.g. 'processes 4 1 2 3'"
      if [ "${1:-}" = -- ]; then
        shift; args+=(--)
        while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
        [ "${1:-}" = -- ] && shift
      fi
      ;;
    *) die_usage "unknown step '$s'" ;;
  esac
  if [ "$s" != build ] && [ "$s" != pack ] && [ "$built" -eq 0 ] && [ ! -x "$gb" ]; then
    echo "gpu.sh: step '$s' needs $gb, which is missing." >&2
    echo "Run 'scripts/gpu.sh build' first, or put build before it: scripts/gpu.sh build $s ..." >&2
    exit 2
  fi
  entry=$s
  for a in "${args[@]}"; do entry+="$sep$a"; done
  steps+=("$entry")
done

mkdir -p "$out/profiles"
gpu_tag() { "$gb" device 2>/dev/null | sed -n 's/.*NVIDIA \(H[0-9]*\).*/\1/p' | head -1 | tr 'A-Z' 'a-z'; }
timed() {
  local t0 rc
  t0=$(date +%s%N); "$@"; rc=$?
  echo "rc=$rc wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms: $*"
  return $rc
}

step_build() {
  # The device's copy of the tree may carry a stale .git, so the commit the profiles record is
  # passed in: GPUBENCH_GIT_SHA=$(git rev-parse --short=12 HEAD).
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUBENCH_CUDA_ARCHS="${GPUBENCH_CUDA_ARCHS:-90}" \
    ${GPUBENCH_GIT_SHA:+-DGPUBENCH_GIT_SHA="$GPUBENCH_GIT_SHA"} >/dev/null &&
    timed cmake --build build-gpu -j "$(nproc)" ${BUILD_TARGET:+--target "$BUILD_TARGET"} > "$out/build-log.txt" 2>&1
  local rc=$?
  tail -3 "$out/build-log.txt" 2>/dev/null
  return $rc
}

step_tests() {
  timed ctest --test-dir build-gpu --output-on-failure -j 2 > "$out/ctest-log.txt" 2>&1
  local rc=$?
  tail -8 "$out/ctest-log.txt"
  grep -B2 -A12 "Failure" "$out/ctest-log.txt" | head -80
  return $rc
}

step_check() {
  local d="$out/check" rc=0
  mkdir -p "$d"
  echo "== device"; "$gb" device || rc=1
  echo "== run --chapter 1 (default settings), twice"
  timed "$gb" run --chapter 1 --out "$d/run1.json" || rc=1
  timed "$gb" run --chapter 1 --quiet --out "$d/run2.json" || rc=1
  python3 scripts/analysis/median-spread.py "$d/run1.json" "$d/run2.json"
  echo "== run --chapter 1 --quick"
  timed "$gb" run --chapter 1 --quick --quiet --out "$d/quick.json" || rc=1
  echo "== error paths (each must fail with its message, not crash)"
  "$gb" run --chapter 1 --pair pinned_transfers --axis dir=h2d --axis size_mib=67108864,1 --quick \
    --out "$d/oom.json"; echo "out of memory rc=$?"
  "$gb" run --chapter 1 --out /proc/nope/x.json; echo "unwritable rc=$?"
  CUDA_VISIBLE_DEVICES= "$gb" run --chapter 1 --out "$d/no-device.json"; echo "no-device rc=$?"
  [ -n "${SKIP_PROFILERS:-}" ] && return $rc
  echo "== ncu cross-check: batched_gemm at m=8192 (each kernel's gpu__time_duration)"
  if command -v ncu >/dev/null; then
    timeout 300 ncu --clock-control none --nvtx --csv --page raw --metrics gpu__time_duration.sum \
      "$gb" run --chapter 1 --pair batched_gemm --axis m=8192 --profile --out "$d/ncu-run.json" \
      >"$d/ncu.csv" 2>"$d/ncu.err"
    echo "ncu rc=$? ($(wc -l <"$d/ncu.csv") lines)"; tail -3 "$d/ncu.err"
  else
    echo "ncu not on PATH: skipped"
  fi
  echo "== compute-sanitizer memcheck, chapter 1 in profile mode at small sizes"
  if command -v compute-sanitizer >/dev/null; then
    timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 "$gb" run --chapter 1 --profile \
      --axis m=32 --axis kernels=100 --axis size_mib=1 --out "$d/memcheck.json" 2>&1 | tail -6
    echo "memcheck rc=${PIPESTATUS[0]}"; [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
  else
    echo "compute-sanitizer not on PATH: skipped"
  fi
  return $rc
}

step_reference() {
  local name=$1 runs=$2 p="$out/profiles" i rc=0 hist=() last
  "$gb" device
  timed "$gb" run --chapter 1 --out "$p/$name-ch01.json" || return 1
  for i in $(seq 2 "$runs"); do
    timed "$gb" run --chapter 1 --quiet --out "$p/$name-ch01-r$i.json" || rc=1
    hist+=("$p/$name-ch01-r$i.json")
  done
  [ "${#hist[@]}" -gt 0 ] || return $rc
  last=${hist[-1]}; unset 'hist[-1]'
  echo "== compare the reference with run $runs, without history"
  "$gb" compare "$p/$name-ch01.json" "$last" -q; echo "compare rc=$?"
  if [ "${#hist[@]}" -gt 0 ]; then
    echo "== with ${#hist[@]} history runs"
    "$gb" compare "$p/$name-ch01.json" "$last" --history "${hist[@]}" --markdown "$out/$name-compare.md" -q
    echo "compare rc=$?"
  fi
  return $rc
}

step_processes() {
  local runs=$1 chapters=() extra=() k c f t0 status rc=0
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do chapters+=("$1"); shift; done
  [ "${1:-}" = -- ] && { shift; extra=("$@"); }
  mkdir -p "$out/runs"
  for k in $(seq 1 "$runs"); do
    for c in "${chapters[@]}"; do
      f=$(printf '%s/runs/ch%02d-r%d.json' "$out" "$c" "$k")
      t0=$(date +%s%N)
      "$gb" run --chapter "$c" --quiet "${extra[@]}" --out "$f" >"$f.txt" 2>&1
      status=$?
      echo "ch$c run $k rc=$status wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms"
      [ "$status" -eq 0 ] || rc=1
    done
  done
  return $rc
}

step_sanitize() {
  # One sanitize.sh process per chapter, or per pair with SANITIZE_PAIRS="ch05/a ch05/b", in parallel.
  local u units pids=() rc=0
  units=${SANITIZE_PAIRS:-${SANITIZE_CHAPTERS:-1 2 3 4 5 6 7 8}}
  for u in $units; do
    local sel=(--chapters "$u")
    case "$u" in */*) sel=(--pair "$u") ;; esac
    # shellcheck disable=SC2086  # SANITIZE_ARGS is a list of words
    GB="$gb" SANITIZE_TIMEOUT=${SANITIZE_TIMEOUT:-240} bash scripts/sanitize.sh "${sel[@]}" ${SANITIZE_ARGS:-} \
      --out "$out/sanitize/${u//\//-}" > "$out/sanitize-${u//\//-}.txt" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  for u in $units; do echo "== $u"; cat "$out/sanitize-${u//\//-}.txt"; done
  rm -f "$out"/sanitize/*/*.json
  return $rc
}

step_ceilings() { timed "$gb" device --ceilings; }

step_metrics() {
  local n=$1 p
  p="$out/profiles/$(gpu_tag)-ch0$n-metrics.json"
  timed "$gb" run --chapter "$n" --metrics${METRICS:+="$METRICS"} --quiet --out "$p" || return 1
  "$gb" roofline --from "$p" --format table
}

step_flush() {
  # Twice: one CUPTI range per variant (its push-to-pop span includes the launch and the
  # synchronize), then --metrics-per-kernel (one range per kernel, as ncu counts).
  local p="$out/flush.json" pk="$out/flush-per-kernel.json"
  timed "$gb" run --pair reduction --pair vectorized_access --pair softmax_fusion --quick --quiet \
    --metrics=dram__bytes_write.sum,dram__bytes_read.sum --out "$p" || return 1
  timed "$gb" run --pair reduction --pair vectorized_access --pair softmax_fusion --quick --quiet \
    --metrics=dram__bytes_write.sum,dram__bytes_read.sum --metrics-per-kernel --out "$pk" || return 1
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
  timed "$gb" run --chapter 3 --quiet --out "$base" || return 1
  for k in 1 2 3; do
    timed "$gb" run --chapter 3 --quiet --confirm "$base" --out "$out/confirm-$k.json"
    "$gb" compare "$base" "$out/confirm-$k.json" > "$out/confirm-$k-compare.txt"; echo "compare exit $?"
    tail -3 "$out/confirm-$k-compare.txt"
  done
}

step_tuning() {
  local tag
  tag=$(gpu_tag)
  timed "$gb" run --chapter 6 --quiet --out "$out/profiles/$tag-ch06.json" || return 1
  timed "$gb" run --chapter 6 --quiet --out "$out/profiles/$tag-ch06-r2.json" || return 1
  timed "$gb" run --chapter 6 --quiet --metrics --out "$out/profiles/$tag-ch06-metrics.json"
  python3 scripts/analysis/tuning-report.py "$out"/profiles/*-ch06.json "$out"/profiles/*-ch06-r2.json
}

step_quick() { timed "$gb" run --chapter 1 --quick --quiet --out "$out/quick-ch01.json"; }

step_pack() {
  local to=${PACK_TO:-}
  [ -n "$to" ] || { echo "pack: set PACK_TO to the folder the archive goes to" >&2; return 2; }
  mkdir -p "$to" && tar czf "$to/gv-results.tgz" -C "$(dirname "$out")" "$(basename "$out")" && ls -l "$to/gv-results.tgz"
}

step_roofs() {
  # An empty cache holds no measured ceilings: the run gets theoretical ones, as a first run does.
  local d="$out/roofs" cache rc=0
  mkdir -p "$d"
  cache=$(mktemp -d)
  timed env GPUBENCH_CACHE_DIR="$cache" COLUMNS=80 "$gb" run --chapter 5 --out "$d/ch05-theoretical.json" \
    >"$d/run-ch05-80.txt" 2>&1 || rc=1
  rm -rf "$cache"
  tail -3 "$d/run-ch05-80.txt"
  [ -f "$d/ch05-theoretical.json" ] || return 1
  COLUMNS=80 "$gb" device >"$d/device-80.txt" 2>&1
  COLUMNS=80 "$gb" roofline --from "$d/ch05-theoretical.json" --format table >"$d/roofline-table-80.txt" || rc=1
  COLUMNS=120 "$gb" roofline --from "$d/ch05-theoretical.json" --format table >"$d/roofline-table-120.txt" || rc=1
  "$gb" export "$d/ch05-theoretical.json" --format markdown >"$d/ch05-theoretical.md" || rc=1
  cat "$d/roofline-table-80.txt"
  python3 scripts/analysis/first-run-roofs.py "$d/ch05-theoretical.json" 80 "$d/run-ch05-80.txt" \
    "$d/device-80.txt" "$d/roofline-table-80.txt" || rc=1
  python3 scripts/analysis/first-run-roofs.py "$d/ch05-theoretical.json" 120 "$d/roofline-table-120.txt" >/dev/null ||
    { echo "roofline table over 120 columns at COLUMNS=120"; rc=1; }
  return $rc
}

step_chapter() {
  local n=$1
  timed "$gb" run --chapter "$n" --quiet --out "$out/profiles/$(gpu_tag)-ch0$n.json"
}

# --- Run. -------------------------------------------------------------------------------------
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv,noheader 2>/dev/null
rc=0
for entry in "${steps[@]}"; do
  IFS=$sep read -r -a words <<<"$entry"
  s=${words[0]}
  args=("${words[@]:1}")
  echo; echo "==== ${words[*]} ($(date -u +%H:%M:%S))"
  if [ "$s" != build ] && [ "$s" != pack ] && [ ! -x "$gb" ]; then
    echo "gpu.sh: step '$s' needs $gb, which is missing; run 'scripts/gpu.sh build'." >&2
    rc=1; continue
  fi
  case "$s" in
    build | tests | check | sanitize | ceilings | flush | confirm | quick | tuning | roofs)
      "step_$s" 2>&1 | tee -a "$out/$s.txt" ;;
    reference | processes) "step_$s" "${args[@]}" 2>&1 | tee -a "$out/$s.txt" ;;
    metrics[1-9]) step_metrics "${s#metrics}" 2>&1 | tee -a "$out/$s.txt" ;;
    ch[1-9]) step_chapter "${s#ch}" 2>&1 | tee -a "$out/$s.txt" ;;
    pack) step_pack ;;
  esac
  status=${PIPESTATUS[0]}
  if [ "$status" -ne 0 ]; then
    rc=1
    if [ "$s" = build ]; then echo "gpu.sh: the build failed ($out/build-log.txt); not running the rest" >&2; exit 1; fi
  fi
done
exit $rc
