#!/usr/bin/env bash
# Every ordered pair of the runs of each chapter in DIR (chNN-rK.json, from multi-process-runs.sh)
# compared with default options: one line per pair with compare's exit code and verdict counts,
# then per chapter the exits 4 and the slower/faster/same/inconclusive totals.
#   scripts/compare-all-pairs.sh DIR [compare options]      GB: gpubench (default ./build/gpubench)
set -uo pipefail
dir=${1:?usage: compare-all-pairs.sh DIR [compare options]}; shift
gb=${GB:-./build/gpubench}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for ch in $(ls "$dir" | sed -n 's/^\(ch[0-9][0-9]\)-r[0-9]*\.json$/\1/p' | sort -u); do
  files=("$dir"/$ch-r*.json)
  n4=0; pairs=0; tot_s=0; tot_f=0; tot_same=0; tot_i=0; recs=0
  for a in "${files[@]}"; do for b in "${files[@]}"; do
    [ "$a" = "$b" ] && continue
    "$gb" compare "$a" "$b" --json "$tmp/c.json" "$@" >/dev/null 2>"$tmp/err"; rc=$?
    read -r s f same i n < <(python3 -c '
import json,sys
c=json.load(open(sys.argv[1]))["records"]
v=[r["verdict"] for r in c]
print(v.count("slower"),v.count("faster"),v.count("same"),v.count("inconclusive"),len(v))' "$tmp/c.json" 2>/dev/null || echo "0 0 0 0 0")
    echo "$(basename "$a") -> $(basename "$b"): exit $rc, slower $s, faster $f, same $same, inconclusive $i of $n"
    [ $rc = 4 ] && n4=$((n4+1)); pairs=$((pairs+1))
    tot_s=$((tot_s+s)); tot_f=$((tot_f+f)); tot_same=$((tot_same+same)); tot_i=$((tot_i+i)); recs=$((recs+n))
  done; done
  echo "== $ch: $pairs comparisons, $n4 exited 4; over $recs record comparisons: slower $tot_s, faster $tot_f, same $tot_same, inconclusive $tot_i"
done
