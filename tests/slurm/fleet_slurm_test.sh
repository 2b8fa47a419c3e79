#!/usr/bin/env bash
# The fleet through a real Slurm (the one tests/slurm/slurm-up.sh starts; .ci/run does): the
# script `fleet submit --dry-run` prints passes `sbatch --test-only`; a job of 4 tasks, one per
# GRES gpu, stores 4 profiles; a job whose measurement fails stores each task's reason and the
# report names them; Slurm missing or misconfigured is refused before anything is submitted.
# No GPU here: each task's measurement step is replaced by a recorded profile (--recorded-profile),
# only that step. Uses the Slurm that SLURM_CONF names when its controller answers (.ci/run starts
# one), else starts its own in a temporary folder with tests/slurm/slurm-up.sh. Exit 77 (skipped,
# with the reason) only when Slurm's or munge's programs are not installed.
#
#   tests/slurm/fleet_slurm_test.sh GPUBENCH SOURCE_DIR
set -euo pipefail
gb=$1
src=$2
here=$(cd "$(dirname "$0")" && pwd)
for p in sbatch squeue scontrol sinfo slurmctld slurmd munged; do
  command -v "$p" >/dev/null || {
    echo "fleet_slurm_test: skipped: $p is not installed (scripts/setup-deps.sh --fleet installs Slurm and munge)"
    exit 77
  }
done
work=$(mktemp -d)
own_slurm=
cleanup() {
  [ -z "$own_slurm" ] || "$here/slurm-down.sh" "$own_slurm"
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
if ! scontrol ping 2>/dev/null | grep -q UP; then
  own_slurm=$work/slurm
  mkdir "$own_slurm"
  "$here/slurm-up.sh" "$own_slurm"
  export SLURM_CONF=$own_slurm/slurm.conf
fi
store=$work/store
mkdir "$store"
recorded=$src/profiles/reference/h200-ch01.json
fail() { echo "fleet_slurm_test: FAILED: $*" >&2; exit 1; }
passed=0
ok() { passed=$((passed + 1)); echo "fleet_slurm_test: ok: $*"; }

# Waits for job $1 to leave the queue (at most 90 s).
wait_job() {
  for _ in $(seq 1 180); do
    squeue -h -j "$1" 2>/dev/null | grep -q . || return 0
    sleep 0.5
  done
  fail "job $1 still queued or running after 90 s: $(squeue -j "$1")"
}

# 1. --dry-run prints a script that Slurm accepts.
"$gb" fleet submit --store "$store" --gpus-per-node 4 --recorded-profile "$recorded" --dry-run -- --chapter 1 --quick \
  >"$work/dry.sbatch"
grep -q '^#SBATCH --gpus-per-task=1$' "$work/dry.sbatch" || fail "no GRES gpu per task in the script"
test_only=$(sbatch --test-only "$work/dry.sbatch" 2>&1) || fail "sbatch --test-only refused the dry run: $test_only"
[ -z "$(ls -A "$store")" ] || fail "--dry-run wrote into the store"
ok "fleet submit --dry-run: sbatch --test-only accepts it ($test_only)"

# 2. A job of 4 tasks stores 4 profiles, each tagged with the job, its task and its GRES gpu.
out=$("$gb" fleet submit --store "$store" --gpus-per-node 4 --recorded-profile "$recorded" -- --chapter 1 --quick)
job=$(sed -n 's/^fleet: submitted job \([0-9]*\) .*/\1/p' <<<"$out")
[ -n "$job" ] || fail "no job id in: $out"
wait_job "$job"
n=$(find "$store/job-$job" -name 'task-*.json' ! -name '*.failed.json' | wc -l)
[ "$n" -eq 4 ] || fail "job $job stored $n profiles, not 4: $(ls "$store/job-$job"; cat "$store"/slurm-"$job".out)"
[ -s "$store/job-$job/manifest.json" ] || fail "job $job has no manifest"
for t in 0 1 2 3; do
  f=$store/job-$job/task-0000$t.json
  grep -q "\"job_id\":\"$job\"" "$f" || fail "$f is not tagged with job $job"
  grep -q "\"task\":$t," "$f" || fail "$f is not tagged with task $t"
  grep -q "\"visible_gpus\":\"$t\"" "$f" || fail "$f: task $t was not bound to GRES gpu $t"
done
report=$("$gb" fleet report --store "$store" --job "$job")
grep -q "^fleet job $job: 4 GPU profiles stored of 4 tasks, 0 failed, 0 missing$" <<<"$report" || fail "report: $report"
ok "a job of 4 tasks stored 4 profiles, each tagged and bound to its own GRES gpu"

# 3. Tasks whose measurement fails store their reason; the report names them, and gates with 4.
out=$("$gb" fleet submit --store "$store" --gpus-per-node 2 -- --chapter 99)
job=$(sed -n 's/^fleet: submitted job \([0-9]*\) .*/\1/p' <<<"$out")
wait_job "$job"
n=$(find "$store/job-$job" -name 'task-*.failed.json' | wc -l)
[ "$n" -eq 2 ] || fail "job $job stored $n failures, not 2"
rc=0
report=$("$gb" fleet report --store "$store" --job "$job" --fail-on-flag) || rc=$?
[ "$rc" -eq 4 ] || fail "fleet report --fail-on-flag exited $rc with failed tasks, not 4"
grep -q "^Failed tasks (2):" <<<"$report" || fail "report: $report"
grep -q "^  task 1 on .*:$" <<<"$report" || fail "report does not name task 1: $report"
grep -q "gpubench run exited 2 without a profile: gpubench: error: no chapter 99" "$store/job-$job/task-00001.failed.json" ||
  fail "task 1's reason: $(cat "$store/job-$job/task-00001.failed.json")"
grep -q "^    gpubench run exited 2 without a profile: gpubench: error: no chapter 99" <<<"$report" || fail "report: $report"
ok "failed tasks stored their reasons; the report names them and exits 4 with --fail-on-flag"

# 4. Slurm missing or misconfigured: refused before anything is submitted or written.
before=$(ls "$store" | wc -l)
rc=0
msg=$(env PATH=/usr/bin/nonexistent "$gb" fleet submit --store "$store" -- --chapter 1 2>&1) || rc=$?
[ "$rc" -eq 1 ] && grep -q "Slurm's sbatch is not on PATH" <<<"$msg" || fail "no sbatch: exit $rc: $msg"
rc=0
msg=$(SLURM_CONF=$work/nonexistent.conf "$gb" fleet submit --store "$store" -- --chapter 1 2>&1) || rc=$?
[ "$rc" -eq 1 ] && grep -q "is not a readable file" <<<"$msg" || fail "bad SLURM_CONF: exit $rc: $msg"
sed "s/^SlurmctldPort=.*/SlurmctldPort=1/" "$SLURM_CONF" >"$work/down.conf"
cp "$(dirname "$SLURM_CONF")/gres.conf" "$work/gres.conf"
rc=0
msg=$(SLURM_CONF=$work/down.conf timeout 60 "$gb" fleet submit --store "$store" -- --chapter 1 2>&1) || rc=$?
[ "$rc" -eq 1 ] && grep -q "no Slurm controller answers" <<<"$msg" || fail "controller down: exit $rc: $msg"
[ "$(ls "$store" | wc -l)" -eq "$before" ] || fail "a refused submit wrote into the store"
ok "Slurm missing, misconfigured or down: refused (exit 1) before anything was submitted"

echo "fleet_slurm_test: $passed passed, 0 failed"
