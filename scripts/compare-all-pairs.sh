#!/usr/bin/env bash
# Every ordered pair of the runs of each chapter in DIR (chNN-rK.json, from `scripts/gpu.sh processes`)
# compared with default options: one line per pair with compare's exit code and verdict counts,
# then per chapter the exits 4, the slower/faster/same/inconclusive totals and how many record
# comparisons could resolve a 10% change (resolvable_pct <= 10), and at the end those totals over
# every chapter but 1 (the README's trust table counts the records of chapters 2-5).
#   scripts/compare-all-pairs.sh DIR [compare options]      GB: gpubench (default ./build/gpubench)
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/compare-all-pairs.sh DIR [compare options]" >&2; exit 2; }
[ -d "$1" ] || { echo "compare-all-pairs: '$1' is not a folder of chNN-rK.json" >&2; exit 2; }
dir=$1; shift
gb=${GB:-./build/gpubench}
all_r=0; all_n=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for ch in $(ls "$dir" | sed -n 's/^\(ch[0-9][0-9]\)-r[0-9]*\.json$/\1/p' | sort -u); do
  files=("$dir"/$ch-r*.json)
  n4=0; pairs=0; tot_s=0; tot_f=0; tot_same=0; tot_i=0; recs=0; tot_r=0
  for a in "${files[@]}"; do for b in "${files[@]}"; do
    [ "$a" = "$b" ] && continue
    "$gb" compare "$a" "$b" --json "$tmp/c.json" "$@" >/dev/null 2>"$tmp/err"; rc=$?
    read -r s f same i n res < <(python3 -c '
import json,sys
c=json.load(open(sys.argv[1]))["records"]
v=[r["verdict"] for r in c]
res=sum(1 for r in c if r.get("resolvable_pct") is not None and r["resolvable_pct"] <= 10)
print(v.count("slower"),v.count("faster"),v.count("same"),v.count("inconclusive"),len(v),res)' "$tmp/c.json" 2>/dev/null || echo "0 0 0 0 0 0")
    echo "$(basename "$a") -> $(basename "$b"): exit $rc, slower $s, faster $f, same $same, inconclusive $i of $n"
    [ $rc = 4 ] && n4=$((n4+1)); pairs=$((pairs+1))
    tot_s=$((tot_s+s)); tot_f=$((tot_f+f)); tot_same=$((tot_same+same)); tot_i=$((tot_i+i)); recs=$((recs+n))
    tot_r=$((tot_r+res))
  done; done
  echo "== $ch: $pairs comparisons, $n4 exited 4; over $recs record comparisons: slower $tot_s, faster $tot_f, same $tot_same, inconclusive $tot_i, able to resolve 10% $tot_r"
  if [ "$ch" != ch01 ]; then all_r=$((all_r+tot_r)); all_n=$((all_n+recs)); fi
done
[ "$all_n" -gt 0 ] && echo "== chapters but 1: $all_r of $all_n record comparisons able to resolve 10% ($(awk -v r="$all_r" -v n="$all_n" 'BEGIN { printf "%.1f", 100 * r / n }')%)"
true
