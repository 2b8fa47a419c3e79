#!/usr/bin/env bash
# Remakes the README's pictures of `gpubench report` in headless Chromium (driven over its DevTools
# pipe, tests/browser/devtools.py):
#   docs/img/report-first-screen.png  the first screen, 1400 x 900 CSS pixels, of a report of the
#                                     PROFILEs given (the README's: `gpubench run --chapter N` on
#                                     an H200 for N = 1..7), else of the committed reference
#                                     profiles of the browser test: every pair's best speedup with
#                                     its interval, chapter by chapter;
#   docs/img/report-h100-ch03.png     chapter 3 of a report of h100-ch03-metrics.json as a reader
#                                     sees it in a 1280 px window (roofline, then its first pair:
#                                     speedup chart, counters, table), at scale 0.8.
# usage: scripts/report-screenshot.sh [BUILD_DIR [PROFILE...]]
set -euo pipefail
usage() { echo "usage: scripts/report-screenshot.sh [BUILD_DIR [PROFILE...]]" >&2; exit 2; }
case "${1:-}" in -h|--help) usage ;; esac
build=${1:-build}
[ $# -eq 0 ] || shift
root=$(cd "$(dirname "$0")/.." && pwd)
# The PROFILEs, from one folder: the report is made there, so that the page names them by file
# name and not by where they lie on this machine.
first=() folder=""
for p in "$@"; do
  [ -f "$p" ] || { echo "report-screenshot: no profile $p" >&2; exit 2; }
  d=$(cd "$(dirname "$p")" && pwd)
  [ -z "$folder" ] || [ "$d" = "$folder" ] || { echo "report-screenshot: give profiles from one folder" >&2; exit 2; }
  folder=$d
  first+=("$(basename "$p")")
done
case "$build" in /*) ;; *) build="$root/$build" ;; esac
cd "$root"
[ -x "$build/gpubench" ] || { echo "report-screenshot: no $build/gpubench; build first (make build)" >&2; exit 2; }
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chromium" ] || { echo "report-screenshot: needs Chromium (scripts/setup-deps.sh --browser)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpubench-shot-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ref=profiles/reference
if [ ${#first[@]} -gt 0 ]; then
  (cd "$folder" && "$build/gpubench" report "${first[@]}" --out "$tmp/first.html")
else
  "$build/gpubench" report "$ref/h100-ch01.json" "$ref/h100-ch02.json" "$ref/h100-ch03-metrics.json" \
    "$ref/h100-ch04.json" "$ref/h100-ch05.json" "$ref/h100-ch07.json" "$ref/h200-ch07.json" --out "$tmp/first.html"
fi
"$build/gpubench" report "$ref/h100-ch03-metrics.json" --out "$tmp/ch03.html"
python3 - "$chromium" "$tmp" <<'PY'
import os, sys
sys.path.insert(0, "tests/browser")
from devtools import Browser
chromium, tmp = sys.argv[1], sys.argv[2]
with Browser(chromium, os.path.join(tmp, "profile")) as b:
    b.open("file://" + os.path.join(tmp, "first.html"), 1400, 900)
    b.screenshot("docs/img/report-first-screen.png")
with Browser(chromium, os.path.join(tmp, "profile")) as b:
    b.open("file://" + os.path.join(tmp, "ch03.html"), 1280, 900)
    top = b.evaluate("document.querySelector('section.chapter').getBoundingClientRect().top + scrollY")
    b.screenshot("docs/img/report-h100-ch03.png", clip=(0, top, 1280, 2100, 0.8))
PY
for f in docs/img/report-first-screen.png docs/img/report-h100-ch03.png; do
  echo "report-screenshot: $f ($(stat -c %s "$f") bytes)"
done
