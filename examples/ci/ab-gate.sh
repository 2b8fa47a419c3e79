#!/usr/bin/env bash
# Benchmark gate that measures the candidate against its base on the same GPU at the same time
# (gpubench ab, docs/measurement.md "Measuring each record's between-process level"): build the
# base commit once, run ab with this GPU model's newest earlier sessions as --history, keep the new
# session as history for the next job, write the reports, and exit with ab's code (0 pass,
# 1 runtime failure, 2 usage, 3 verification failed, 4 regression, 5 inconclusive with --fail-on
# any).
#   usage: examples/ci/ab-gate.sh BASE_REF [CHAPTERS] [extra ab options...]
#          CHAPTERS: a comma-separated list (default 2,3,4,5,6,7)
#   env:   GPUBENCH        the candidate's binary (default build/gpubench)
#          BASE_GPUBENCH   the base's binary; unset, BASE_REF is built in a git worktree, once per
#                          commit, and kept in GPUBENCH_CACHE/builds/SHA/gpubench
#          AB_MODE         quick (default: ab --quick, the CI mode) or default (ab's own defaults,
#                          the mode chapter 1 was measured in; docs/results/h100.md)
#          AB_HISTORY      how many earlier sessions to pass as --history (default 10, at least 1)
#          GPUBENCH_CACHE  where builds and history are kept between jobs (default
#                          ${XDG_CACHE_HOME:-~/.cache}/gpubench); history is one small JSON file a
#                          session, in ab-history/GPU_MODEL/MODE-chCHAPTERS/
#          GPUBENCH_OUT    the reports' folder (default gpubench-ci)
#          GPUBENCH_CUDA_ARCHS  the architectures the base is built for (default 90)
# A session is kept as history only when ab judged it (exit 0, 4 or 5): a record's spread between
# pairs of workers is what history pools, and a real change moves every pair alike, so a session
# that caught a regression is as good a sample of the spread as one that passed.
set -uo pipefail
die() { echo "ab-gate: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: examples/ci/ab-gate.sh BASE_REF [CHAPTERS] [ab options...]"
base_ref=$1
chapters=${2:-2,3,4,5,6,7}
shift $(($# >= 2 ? 2 : 1))
[[ $chapters =~ ^[0-9]+(,[0-9]+)*$ ]] || die "CHAPTERS must be a comma-separated list such as 2,3 (got '$chapters')"
gb=${GPUBENCH:-build/gpubench}
[ -x "$gb" ] || die "GPUBENCH=$gb is not an executable; build the candidate first (make build)"
mode=${AB_MODE:-quick}
case "$mode" in
  quick) mode_args=(--quick) ;;
  default) mode_args=() ;;
  *) die "AB_MODE must be quick or default (got '$mode')" ;;
esac
keep=${AB_HISTORY:-10}
[[ $keep =~ ^[1-9][0-9]*$ ]] || die "AB_HISTORY must be a whole number of at least 1 (got '$keep')"
cache=${GPUBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpubench}
out=${GPUBENCH_OUT:-gpubench-ci}
mkdir -p "$out" "$cache" || die "cannot create $out or $cache"

# The base build: given, or built from BASE_REF once per commit.
base_gb=${BASE_GPUBENCH:-}
if [ -z "$base_gb" ]; then
  sha=$(git rev-parse --verify --quiet "$base_ref^{commit}") || die "BASE_REF '$base_ref' is no commit of this repository"
  base_gb=$cache/builds/$sha/gpubench
  if [ ! -x "$base_gb" ]; then
    src=$(mktemp -d) || die "cannot create a temporary folder"
    trap 'git worktree remove --force "$src/tree" >/dev/null 2>&1; rm -rf "$src"' EXIT
    echo "ab-gate: building the base $base_ref ($sha) once; later jobs reuse $base_gb" >&2
    git worktree add --detach --quiet "$src/tree" "$sha" || die "cannot check out $sha"
    # The driver alone: ab needs no test of the base.
    make -C "$src/tree" build BUILD=build "GPUBENCH_CUDA_ARCHS=${GPUBENCH_CUDA_ARCHS:-90}" \
      CMAKE_ARGS=-DGPUBENCH_BUILD_TESTS=OFF >&2 ||
      { echo "ab-gate: the base $base_ref does not build" >&2; exit 1; }
    mkdir -p "$cache/builds/$sha" && cp "$src/tree/build/gpubench" "$base_gb.tmp.$$" && mv "$base_gb.tmp.$$" "$base_gb" ||
      die "cannot keep the base build in $cache/builds/$sha"
  fi
fi
[ -x "$base_gb" ] || die "BASE_GPUBENCH=$base_gb is not an executable"

# History of this GPU model, mode and chapter list: the newest AB_HISTORY sessions.
# (ab itself leaves out sessions of another model; the folder keeps the newest ones this model's.)
visible=${CUDA_VISIBLE_DEVICES:-0}
model=$(nvidia-smi --query-gpu=name --format=csv,noheader -i "${visible%%,*}" 2>/dev/null | head -n 1)
[ -n "$model" ] || model=unknown-gpu
history_dir=$cache/ab-history/$(tr -c 'A-Za-z0-9._-' '_' <<<"$model" | sed 's/_*$//')/$mode-ch${chapters//,/-}
mkdir -p "$history_dir" || die "cannot create $history_dir"
history=()
while IFS= read -r f; do history+=(--history "$f"); done < <(ls -1t "$history_dir"/*.json 2>/dev/null | head -n "$keep")
echo "ab-gate: $base_ref against the candidate, chapters $chapters, mode $mode, $((${#history[@]} / 2)) earlier sessions as history ($history_dir)" >&2
# A record's spread between worker pairs is pooled over the earlier sessions: with fewer than two
# the quick mode resolved 5% in fewer device-timed records (docs/results/h200.md, "The head at
# afcd5e9"). An A/A session, the candidate on both sides, samples that spread as well as any.
if [ ${#history[@]} -lt 4 ]; then
  {
    echo "ab-gate: fewer than two earlier sessions as history, so intervals are wider"
    echo "         than with two; to seed the folder, run this script with"
    echo "         BASE_GPUBENCH set to the candidate's binary"
  } >&2
fi

# No report of an earlier job may pass for this one's.
rm -f "$out/ab.json" "$out/summary.md" "$out/junit.xml"
"$gb" ab --base "$base_gb" --new "$gb" --chapter "$chapters" "${mode_args[@]}" "${history[@]}" \
  --json "$out/ab.json" --markdown "$out/summary.md" --junit "$out/junit.xml" "$@"
rc=$?
case "$rc" in
  0 | 4 | 5)
    kept=$history_dir/$(date -u +%Y%m%dT%H%M%SZ)-$$.json
    cp "$out/ab.json" "$kept.tmp" && mv "$kept.tmp" "$kept" && echo "ab-gate: kept this session as history: $kept" >&2
    # Only the newest AB_HISTORY are read; keep twice that, so a few bad sessions removed by hand
    # still leave enough.
    ls -1t "$history_dir"/*.json 2>/dev/null | tail -n +$((2 * keep + 1)) | while IFS= read -r old; do rm -f "$old"; done
    ;;
  *) echo "ab-gate: ab exited $rc; this session is not kept as history" >&2 ;;
esac
# GitHub shows this file on the run's summary page; elsewhere it is just an artifact.
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -s "$out/summary.md" ]; then cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"; fi
exit "$rc"
