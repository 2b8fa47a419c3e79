#!/usr/bin/env bash
# Remakes docs/img/report-h100-ch03.png, the README's picture of `gpubench report`: a report of
# profiles/reference/h100-ch03-metrics.json in headless Chromium, cut to chapter 3's roofline and
# its first pair (explanation, table, box plot).
# usage: scripts/report-screenshot.sh [BUILD_DIR] [TOP HEIGHT]
# TOP and HEIGHT are the rows kept (device pixels at scale 0.8, default 1232 1710): the page above
# chapter 3 (header, contents, device, ceilings) is that tall today. If the layout moves, look at
# $tmp/page.png (printed) and pass new ones. Scale 0.8 keeps the text crisp and the file under 300 kB.
set -euo pipefail
build=${1:-build}
top=${2:-1232}
height=${3:-1710}
root=$(cd "$(dirname "$0")/.." && pwd)
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chromium" ] || { echo "report-screenshot: needs Chromium (scripts/setup-deps.sh --browser)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpubench-shot-XXXXXX")
trap 'rm -rf "$tmp/chromium-profile"' EXIT
cd "$root"
"$build/gpubench" report profiles/reference/h100-ch03-metrics.json --out "$tmp/report.html"
"$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$tmp/chromium-profile" \
  --force-device-scale-factor=0.8 --window-size=1280,4200 --screenshot="$tmp/page.png" "file://$tmp/report.html" 2>/dev/null
python3 tests/browser/png_tool.py crop "$tmp/page.png" docs/img/report-h100-ch03.png "$top" "$height"
echo "report-screenshot: docs/img/report-h100-ch03.png ($(stat -c %s docs/img/report-h100-ch03.png) bytes; whole page: $tmp/page.png)"
