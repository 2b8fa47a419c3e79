#!/usr/bin/env bash
# Benchmark gate with a run store (docs/store.md): run a chapter (the run is recorded in the store
# under this branch), compare it with the newest comparable run of the base branch, with the base's
# earlier runs as history, write the reports, and exit with gpubench's code (0 pass, 1 runtime
# failure, 2 usage, 3 verification failed, 4 regression, 5 inconclusive with --fail-on any).
#   usage: examples/ci/store-gate.sh [CHAPTER] [extra compare options...]
#   env:   GPUBENCH_DB    the store: a SQLite file that the CI keeps between jobs, or a team's
#                         postgresql://USER@HOST/DB (default: ~/.local/share/gpubench/runs.db)
#          BASE_REF       the branch or tag to compare with (default main)
#          GPUBENCH       the binary (default build/gpubench)
#          GPUBENCH_OUT   the reports' folder (default gpubench-ci)
# The branch the run is recorded under comes from the CI (GITHUB_HEAD_REF / GITHUB_REF_NAME,
# CI_COMMIT_REF_NAME) or the checkout. The base branch's own jobs record its runs: run this on
# pushes to it as well, so that there is something to compare with.
set -uo pipefail
chapter=${1:-1}
[ $# -ge 1 ] && shift
gb=${GPUBENCH:-build/gpubench}
out=${GPUBENCH_OUT:-gpubench-ci}
base=${BASE_REF:-main}
mkdir -p "$out"

"$gb" run --chapter "$chapter" --quiet --out "$out/profile.json"
rc=$?
if [ "$rc" -ne 0 ]; then echo "store-gate: the run itself failed (exit $rc); not comparing" >&2; exit "$rc"; fi

# The base branch's first job has nothing to compare with: it only records.
runs=$("$gb" history --ref "$base" --chapter "$chapter" --limit 1 --json) || exit $?
if ! grep -q '"id"' <<<"$runs"; then
  echo "store-gate: no stored run of $base yet (its own jobs record them); nothing to gate on" >&2
  exit 0
fi
# The new run is the newest stored one (this job's); each choice is printed on one line.
"$gb" compare --base "$base" --markdown "$out/summary.md" --junit "$out/junit.xml" --json "$out/compare.json" "$@"
rc=$?
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -s "$out/summary.md" ]; then cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"; fi
exit "$rc"
