#!/usr/bin/env bash
# Runs every chapter under compute-sanitizer's memcheck, racecheck, synccheck and initcheck, each
# pair at its smallest size, each variant once (`run --smallest --profile`: verified, untimed), and
# prints one line per (chapter, tool) and a total. Exit 0 only when every run reports 0 errors and
# gpubench itself exited 0.
#
# Third-party kernels: racecheck reports shared-memory hazards inside cuBLAS's own Hopper kernels
# (nvjet_*), which we neither wrote nor can fix. They are not hidden: racecheck checks every
# kernel, and each hazard it reports is attributed by the kernel it names. Those in kernels
# matching THIRD_PARTY are counted on their own, marked "third-party", and do not fail the
# script; every other error (also any beyond the printed ones) counts as ours.
# Why one run with every kernel checked: racecheck (compute-sanitizer of CUDA 13.0, driver
# 580.159.04) stops with "Internal Sanitizer Error: The Sanitizer failed to handle a hardware
# exception" when a thread-block-cluster kernel runs *unchecked*. Measured on an H100 and an
# H200: excluding nvjet (--kernel-name-exclude; its names say 1x2, 2x1: clusters) crashed the
# first tensor-core GEMM of every chapter-5 pair that has one; checking nvjet alone crashed
# chapter 7's cluster_histogram, our own cluster kernel, which racecheck checks cleanly. Such a
# run says TOOL-CRASH: every later launch fails, so it says nothing about the kernels after it.
# --per-pair (or --pair ID) runs each pair in its own sanitizer process instead of one per
# chapter, so that a crash or a timeout stops one pair only; each line then names its pair.
# Under synccheck those kernels are excluded, and not checked on their own: one cuBLAS GEMM
# under synccheck ran past 200 s on an H200 (4 of chapter 5's pairs), and a barrier misuse
# inside cuBLAS would not be ours to fix either. memcheck and initcheck check every kernel.
# initcheck does not see the stores of those nvjet kernels: on an H200, every read of memory that
# only a cuBLAS GEMM had written counted as uninitialized (bias_in_place, gemm_alignment), though
# the GEMM wrote all of it (its output, poisoned with NaN first, verified finite). Such
# intermediates are therefore poisoned at setup, which both quiets initcheck and makes the
# verification prove the GEMM wrote every element.
#
# Usage, from the repo root on a GPU machine:
#   scripts/sanitize.sh [--chapters "1 2 3 4 5 6 7 8"] [--tools "memcheck racecheck synccheck initcheck"] (spaces or commas)
#                       [--per-pair | --pair ID ...] [--device N] [--out DIR]
# Environment: GB (gpubench binary, default ./build/gpubench), SANITIZER (compute-sanitizer, default
#   from PATH or /usr/local/cuda/bin), THIRD_PARTY (kernel-name substring treated as third-party
#   under racecheck and synccheck, default nvjet), SANITIZE_TIMEOUT (seconds one sanitizer run may take, 0 = no
#   limit, the default; a run stopped by it is a failed run, "TIMEOUT": synccheck over chapter 5
#   ran past 7 minutes on an H100, 2 records in).
# Exit codes: 0 clean; 1 errors found, or no GPU / no compute-sanitizer; 2 usage.
set -uo pipefail

usage() { sed -n '2,/^[^#]/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; }

chapters="1 2 3 4 5 6 7 8"
tools="memcheck racecheck synccheck initcheck"
device=0
out=sanitize-logs
per_pair=0
pairs=""
while [ $# -gt 0 ]; do
  case "$1" in
    # Lists are separated by spaces or commas (commas survive word splitting, e.g. in
    # scripts/gpu.sh's SANITIZE_ARGS).
    --chapters) chapters=${2:?--chapters needs a list, e.g. \"1 3\"}; chapters=${chapters//,/ }; shift 2 ;;
    --tools) tools=${2:?--tools needs a list, e.g. \"memcheck racecheck\"}; tools=${tools//,/ }; shift 2 ;;
    --device) device=${2:?--device needs an ordinal}; shift 2 ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --per-pair) per_pair=1; shift ;;
    --pair)
      # Letters, digits and '_' after the chapter only: the id is split into words later.
      case "${2:-}" in ch[0-9][0-9]/*[!A-Za-z0-9_]* | ch[0-9][0-9]/) ;;
        ch[0-9][0-9]/*) pairs="$pairs $2"; shift 2; continue ;;
      esac
      echo "sanitize.sh: --pair needs an id such as ch05/bias_in_place (see gpubench list), got '${2:-}'" >&2
      exit 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "sanitize.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
for t in $tools; do
  case "$t" in memcheck|racecheck|synccheck|initcheck) ;;
    *) echo "sanitize.sh: unknown tool '$t' (memcheck, racecheck, synccheck, initcheck)" >&2; exit 2 ;;
  esac
done
for c in $chapters; do
  case "$c" in ''|*[!0-9]*) echo "sanitize.sh: chapter '$c' is not a number" >&2; exit 2 ;; esac
done

gb=${GB:-./build/gpubench}
third_party=${THIRD_PARTY:-nvjet}
if [ ! -x "$gb" ]; then
  echo "sanitize.sh: no gpubench binary at $gb: build it first (make build), or set GB=path/to/gpubench" >&2
  exit 1
fi
# Without a GPU nothing can be checked: say so plainly instead of reporting 20 failed runs.
if ! device_out=$("$gb" device --device "$device" 2>&1); then
  echo "sanitize.sh: no usable CUDA device (gpubench device --device $device said:)" >&2
  echo "$device_out" | sed 's/^/  /' >&2
  echo "sanitize.sh: compute-sanitizer needs a GPU; run this script on a GPU machine" >&2
  exit 1
fi
sanitizer=${SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
if [ ! -x "$sanitizer" ]; then
  echo "sanitize.sh: compute-sanitizer not found (tried PATH and /usr/local/cuda/bin); it comes with the" \
       "CUDA Toolkit; set SANITIZER=path/to/compute-sanitizer" >&2
  exit 1
fi
# Captured first: `--help | grep -q` under pipefail fails whenever grep exits before the help
# text is written out (SIGPIPE), which happened when several chapters started at once.
sanitizer_help=$("$sanitizer" --help 2>&1)
if ! grep -q -- '--kernel-name-exclude' <<<"$sanitizer_help"; then
  echo "sanitize.sh: $sanitizer has no --kernel-name-exclude (needs a newer CUDA Toolkit)" >&2
  exit 1
fi
mkdir -p "$out" || exit 1

# Counts from a compute-sanitizer log: "ERROR SUMMARY: N errors" (every tool), and for racecheck
# "RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)". Prints "errors warnings";
# errors is "?" when the summary is missing (the tool itself failed). Past --print-limit a second
# line follows, "ERROR SUMMARY: M errors were not printed": N, not M, is the total.
count() {
  local log=$1 errors warnings
  errors=$(sed -n '/not printed/!s/.*ERROR SUMMARY: \([0-9][0-9]*\) error.*/\1/p' "$log" | tail -1)
  warnings=$(sed -n 's/.*RACECHECK SUMMARY: .*(\([0-9][0-9]*\) errors*, \([0-9][0-9]*\) warnings*).*/\2/p' "$log" | tail -1)
  # compute-sanitizer 2025.3 (CUDA 13.0) ends a clean racecheck run with the RACECHECK SUMMARY
  # line alone, no ERROR SUMMARY: take the error count from it then.
  [ -z "$errors" ] && errors=$(sed -n 's/.*RACECHECK SUMMARY: .*(\([0-9][0-9]*\) errors*, [0-9][0-9]* warnings*).*/\1/p' "$log" | tail -1)
  echo "${errors:-?} ${warnings:-0}"
}

# What one sanitizer run covers: "5" (a chapter) or "ch05/bias_in_place" (a pair, --per-pair).
units_of() {
  local c=$1 ids
  if [ -n "$pairs" ]; then echo "$pairs"; return; fi
  if [ "$per_pair" -eq 0 ]; then echo "$c"; return; fi
  ids=$("$gb" list --chapter "$c" --json | sed -n 's/.*"id": "\(ch[0-9]*\/[A-Za-z0-9_]*\)".*/\1/p')
  [ -n "$ids" ] || { echo "sanitize.sh: gpubench list --chapter $c --json named no pair" >&2; return 1; }
  echo "$ids"
}
# The run selector, the file-name stem and the printed label of a unit. The sanitizers check code
# paths, not sizes: every pair runs at its smallest size, and --smallest keeps every label, so a
# few chapter-5 pairs would still run GEMMs of 8192^3 or 4000^3 with every access checked (more
# than 270 s each under racecheck or initcheck on an H200). Run alone (--per-pair, --pair), those
# take a size that makes the same calls: their smallest shape, and for gemm_alignment n=480,
# like its smallest n=4000 a multiple of 32 but not of 64, so the padded variant pads and slices.
selector() {
  case "$1" in
    ch05/matmul_precision) echo --pair "$1" --axis shape=1024 ;;
    ch05/bias_in_place | ch05/fused_linear_gelu) echo --pair "$1" --axis shape=512x768x3072 ;;
    ch05/gemm_alignment) echo --pair "$1" --axis n=480 ;;
    */*) echo --pair "$1" ;;
    *) echo --chapter "$1" ;;
  esac
}
stem() { case "$1" in */*) echo "${1/\//-}" ;; *) printf 'ch%s' "$1" ;; esac; }
label() { case "$1" in */*) echo "$1" ;; *) printf 'ch%02d' "$1" ;; esac; }

# One sanitizer run. Sets: rc (gpubench's exit code through the sanitizer), errors, warnings, secs.
sanitize() {
  local tool=$1 unit=$2 log=$3; shift 3
  local start=$SECONDS limit=()
  [ "${SANITIZE_TIMEOUT:-0}" -gt 0 ] && limit=(timeout "$SANITIZE_TIMEOUT")
  # shellcheck disable=SC2046  # selector prints several words on purpose
  "${limit[@]}" "$sanitizer" --tool "$tool" --print-limit 100 "$@" \
    "$gb" run $(selector "$unit") --smallest --profile --device "$device" --quiet \
    --out "$out/$(stem "$unit")-$tool.json" >"$log" 2>&1
  rc=$?
  secs=$((SECONDS - start))
  read -r errors warnings < <(count "$log")
}

# Racecheck errors reported in kernels matching THIRD_PARTY ("Error: Race reported between Read
# access at KERNEL+0x..", the kernel named first; warnings are counted apart and not attributed).
third_party_races() {
  grep 'Error: Race reported between' "$1" | sed -n 's/.* access at \([^ +]*\).*/\1/p' | grep -c -- "$third_party"
}

# With --pair, the pairs given are the units, once (their chapters are in their ids).
[ -n "$pairs" ] && chapters=pairs
total_errors=0 total_third=0 failed_runs=0
printf '%-5s %-10s %-12s %s\n' chapter tool result details
for c in $chapters; do
  units=$(units_of "$c") || { failed_runs=$((failed_runs + 1)); continue; }
  for u in $units; do
    for t in $tools; do
      log="$out/$(stem "$u")-$t.log"
      extra=()
      [ "$t" = synccheck ] && extra=(--kernel-name-exclude "kns=$third_party")
      sanitize "$t" "$u" "$log" "${extra[@]}"
      third=0
      if [ "$t" = racecheck ] && [ "$errors" != "?" ]; then
        third=$(third_party_races "$log")
        [ "$third" -gt "$errors" ] && third=$errors  # more printed than counted: never below 0 ours
        errors=$((errors - third))
        total_third=$((total_third + third))
      fi
      status=ok
      # The tool itself can fail (racecheck with a cluster kernel unchecked, see the top): every
      # later launch then fails too, so the run says nothing about the kernels after it.
      if [ "$rc" -eq 124 ] && [ "${SANITIZE_TIMEOUT:-0}" -gt 0 ]; then status=TIMEOUT; failed_runs=$((failed_runs + 1))
      elif grep -q "Internal Sanitizer Error" "$log"; then status=TOOL-CRASH; failed_runs=$((failed_runs + 1))
      elif [ "$errors" = "?" ]; then status=FAILED; failed_runs=$((failed_runs + 1))
      elif [ "$errors" -gt 0 ]; then status=ERRORS; total_errors=$((total_errors + errors))
      fi
      if [ "$rc" -ne 0 ] && [ "$status" = ok ]; then status=FAILED; failed_runs=$((failed_runs + 1)); fi
      extra_note=""
      [ "$t" = racecheck ] && extra_note=" (+ $third in kernels matching \"$third_party\", not ours)"
      printf '%-5s %-10s %-12s %s errors%s, %s warnings, gpubench exit %s, %ss  (%s)\n' \
        "$(label "$u")" "$t" "$status" "$errors" "$extra_note" "$warnings" "$rc" "$secs" "$log"
    done
  done
done
echo "total: $total_errors errors in gpubench's kernels, $failed_runs failed runs;" \
     "$total_third third-party errors (racecheck, kernels matching \"$third_party\", not counted; synccheck skips them)"
[ "$total_errors" -eq 0 ] && [ "$failed_runs" -eq 0 ]
