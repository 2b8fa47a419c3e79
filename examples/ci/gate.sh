#!/usr/bin/env bash
# Benchmark gate for a GPU CI runner: run a chapter, compare with the stored baseline profile,
# write the reports, and exit with gpubench's code (0 pass, 1 runtime failure, 2 usage, 3
# verification failed, 4 regression, 5 inconclusive with --fail-on any).
#   usage: examples/ci/gate.sh BASELINE.json [CHAPTER] [extra compare options...]
#   env:   GPUBENCH (binary, default build/gpubench), GPUBENCH_OUT (report dir, default gpubench-ci)
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: examples/ci/gate.sh BASELINE.json [CHAPTER] [compare options...]" >&2; exit 2; }
baseline=$1
chapter=${2:-1}
shift $(( $# >= 2 ? 2 : 1 ))
gb=${GPUBENCH:-build/gpubench}
out=${GPUBENCH_OUT:-gpubench-ci}
mkdir -p "$out"

"$gb" run --chapter "$chapter" --out "$out/profile.json"
rc=$?
if [ "$rc" -ne 0 ]; then echo "gate: the run itself failed (exit $rc); not comparing" >&2; exit "$rc"; fi

"$gb" compare "$baseline" "$out/profile.json" --markdown "$out/summary.md" --junit "$out/junit.xml" \
  --json "$out/compare.json" "$@"
rc=$?
# GitHub shows this file on the run's summary page; elsewhere it is just an artifact.
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"; fi
exit "$rc"
