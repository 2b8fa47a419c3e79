#!/usr/bin/env bash
# The run store on a GPU, as a new user meets it. For each chapter (default: 1, what `make run`
# runs, then 2), in a folder of its own: `gpubench run --chapter C`, recorded in one fresh SQLite
# store, then `gpubench roofline --out roofline.png` and `gpubench report --out report.html` with
# no profile named (without gnuplot: `roofline --format table`), each of which must pick the run
# just recorded; at the end `gpubench history` and `gpubench compare` with no arguments. What the store adds to a run: the milliseconds `run`
# spent storing its profile (its "store:" line) against the run's wall time, checked against 5%.
#   usage: scripts/analysis/store-on-gpu.sh [CHAPTER...]
#   env:   GB (default build-gpu/gpubench, as `scripts/gpu.sh build` makes; else build/gpubench),
#          OUT (default gpu-out): everything goes to $OUT/store/ (store.db, chN/ with run.txt,
#          the profile, roofline.png, report.html and their console output, summary.txt)
#   exit:  0 every step worked and the store added at most 5%; 1 otherwise
set -euo pipefail
cd "$(dirname "$0")/../.."
gb=${GB:-build-gpu/gpubench}
[ -x "$gb" ] || gb=build/gpubench
[ -x "$gb" ] || { echo "store-on-gpu: no gpubench binary (set GB, or run scripts/gpu.sh build)" >&2; exit 1; }
gb=$(realpath "$gb")
[ $# -gt 0 ] || set -- 1 2
out=$(realpath -m "${OUT:-gpu-out}/store")
mkdir -p "$out"
rm -f "$out"/store.db "$out"/store.db-wal "$out"/store.db-shm
export GPUBENCH_DB=$out/store.db NCCL_NVLS_ENABLE=0
summary=$out/summary.txt
: >"$summary"
failed=0
have_gnuplot=1
command -v gnuplot >/dev/null 2>&1 || have_gnuplot=0
note() { echo "$*" | tee -a "$summary"; }
fail() { note "FAIL: $*"; failed=1; }

[ "$have_gnuplot" -eq 1 ] ||
  note "gnuplot is not on PATH: roofline as a table, no report; draw the PNG from $out/store.db elsewhere"
for c in "$@"; do
  dir=$out/ch$c
  rm -rf "$dir" && mkdir -p "$dir"
  start=$(date +%s%N)
  status=0
  (cd "$dir" && "$gb" run --chapter "$c" --out "ch$c.json") >"$dir/run.txt" 2>&1 || status=$?
  wall_ms=$((($(date +%s%N) - start) / 1000000))
  [ "$status" -eq 0 ] || fail "chapter $c: run exited $status ($dir/run.txt)"
  stored=$(grep -E '^store: run #[0-9]+ recorded' "$dir/run.txt" || true)
  if [ -z "$stored" ]; then
    fail "chapter $c: run printed no 'store: run #N recorded' line"
    continue
  fi
  id=$(sed -E 's/^store: run #([0-9]+).*/\1/' <<<"$stored")
  store_ms=$(sed -E 's/.*\(([0-9]+) ms\)$/\1/' <<<"$stored")
  pct=$(awk -v s="$store_ms" -v w="$wall_ms" 'BEGIN {printf "%.2f", 100 * s / w}')
  note "chapter $c: run #$id, wall $wall_ms ms, storing $store_ms ms = $pct% of the run"
  awk -v p="$pct" 'BEGIN {exit !(p <= 5)}' || fail "chapter $c: the store added $pct% (> 5%)"
  steps=("roofline --out roofline.png" "report --out report.html")
  # Without gnuplot (a bare GPU host), the roofline is a table and there is no report; the store
  # comes back in $OUT, so the picture can be drawn from it anywhere: `GPUBENCH_DB=.../store.db
  # gpubench roofline --out roofline.png` plots the newest run in it.
  [ "$have_gnuplot" -eq 1 ] || steps=("roofline --format table")
  for step in "${steps[@]}"; do
    name=${step%% *}
    status=0
    (cd "$dir" && "$gb" $step) >"$dir/$name.txt" 2>&1 || status=$?
    [ "$status" -eq 0 ] || fail "chapter $c: '$step' exited $status ($dir/$name.txt)"
    grep -q "^$name: run #$id," "$dir/$name.txt" || fail "chapter $c: '$step' did not name run #$id"
  done
  if [ "$have_gnuplot" -eq 1 ]; then
    [ "$(head -c 8 "$dir/roofline.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
      fail "chapter $c: roofline.png is not a PNG"
  fi
  note "chapter $c: $(head -n 1 "$dir/roofline.txt")"
done
"$gb" history >"$out/history.txt" 2>&1 || fail "history exited $? ($out/history.txt)"
status=0
"$gb" compare >"$out/compare.txt" 2>&1 || status=$?
note "compare with no arguments: exit $status (2 is expected with one run per chapter: no earlier comparable run)"
for f in "$@"; do GB=$gb scripts/analysis/store-overhead.sh "$out/ch$f/ch$f.json"; done >"$out/import-overhead.txt" 2>&1 ||
  fail "store-overhead.sh failed ($out/import-overhead.txt)"
cat "$out/import-overhead.txt" >>"$summary"
[ "$failed" -eq 0 ] && note "store-on-gpu: all steps worked" || note "store-on-gpu: some steps FAILED"
exit "$failed"
