#!/usr/bin/env bash
# Remakes the README's pictures of `gpubench report`, from the committed H100 reference profiles,
# in headless Chromium (driven over its DevTools pipe, tests/browser/devtools.py):
#   docs/img/report-first-screen.png  the first screen, 1400 x 900 CSS pixels, of a report of
#                                     chapters 1-5: every pair's best speedup with its interval;
#   docs/img/report-h100-ch03.png     chapter 3 of a report of h100-ch03-metrics.json as a reader
#                                     sees it in a 1280 px window (roofline, then its first pair:
#                                     speedup chart, counters, table), at scale 0.8.
# usage: scripts/report-screenshot.sh [BUILD_DIR]
set -euo pipefail
usage() { echo "usage: scripts/report-screenshot.sh [BUILD_DIR]" >&2; exit 2; }
[ $# -le 1 ] || usage
case "${1:-}" in -h|--help) usage ;; esac
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -x "$build/gpubench" ] || { echo "report-screenshot: no $build/gpubench; build first (make build)" >&2; exit 2; }
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chromium" ] || { echo "report-screenshot: needs Chromium (scripts/setup-deps.sh --browser)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpubench-shot-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ref=profiles/reference
"$build/gpubench" report "$ref/h100-ch01.json" "$ref/h100-ch02.json" "$ref/h100-ch03-metrics.json" \
  "$ref/h100-ch04.json" "$ref/h100-ch05.json" --out "$tmp/first.html"
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
