#!/usr/bin/env bash
# What recording a run in the run store costs, beside the chapter's own wall time: each reference
# profile imported alone into a new SQLite store (`gpubench history import`, timed from the outside:
# the store and its schema are created too), and the wall time of the run that wrote it
# (finished_at - started_at). The import is an upper bound of what `run` adds: it also starts a
# process, reads the file and validates it twice, where `run` only serialises the profile it holds,
# validates and stores it.
#   usage: scripts/analysis/store-overhead.sh [PROFILE...]   (default: profiles/reference/*.json)
#   env:   GB (the binary, default build/gpubench), REPEAT (imports per profile, default 5; the
#          median is shown)
set -euo pipefail
gb=${GB:-build/gpubench}
repeat=${REPEAT:-5}
[ -x "$gb" ] || { echo "store-overhead: no gpubench at $gb (set GB)" >&2; exit 2; }
[ $# -gt 0 ] || set -- profiles/reference/*.json
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '%-28s %9s %10s %11s %7s\n' profile "size kB" "run s" "record ms" "%"
for f in "$@"; do
  wall=$(python3 - "$f" <<'PY'
import datetime, json, sys
p = json.load(open(sys.argv[1]))["provenance"]
fmt = "%Y-%m-%dT%H:%M:%SZ"
print((datetime.datetime.strptime(p["finished_at"], fmt) - datetime.datetime.strptime(p["started_at"], fmt)).total_seconds())
PY
)
  times=()
  for ((i = 0; i < repeat; i++)); do
    rm -f "$dir"/runs.db*
    start=$(date +%s%N)
    "$gb" history import --db "$dir/runs.db" "$f" >/dev/null
    end=$(date +%s%N)
    times+=($(((end - start) / 1000000)))
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}')
  printf '%-28s %9d %10.1f %11d %7.2f\n' "$(basename "$f")" $(($(stat -c %s "$f") / 1000)) "$wall" "$median" \
    "$(awk -v m="$median" -v w="$wall" 'BEGIN {print (w > 0 ? 100 * m / 1000 / w : 0)}')"
done
