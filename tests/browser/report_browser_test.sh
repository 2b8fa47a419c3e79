#!/usr/bin/env bash
# The HTML report as a person sees it: rendered from committed profiles, opened in headless
# Chromium with every network name unresolvable (offline), and checked for
#   * no console message at all: the page has no script, and its Content-Security-Policy
#     (default-src 'none') makes Chromium log any load it would attempt, so a message means a
#     script error or a reference outside the file;
#   * a screenshot that is not blank (enough distinct colours and ink);
#   * the DOM Chromium built: every profile's, chapter's and pair's section, a roofline <svg> per
#     chapter, a box plot per pair, a row per record, links only inside the page, and with
#     --compare the verdicts regressions first (tests/browser/check_report.py);
#   * the page as Chromium lays it out at 1400 x 900 (driven over its DevTools pipe): the first
#     screen shows every pair's best speedup with its interval, and every text of every SVG
#     renders at 10 px or more (check_report.py --live).
# usage: report_browser_test.sh GPUBENCH SOURCE_DIR [SYNTHETIC_TUNING_PROFILE]
# SYNTHETIC_TUNING_PROFILE (tests/fixtures) writes a tuning pair's made-up profile: its report's
# heatmap is measured too, since no committed profile has a tuning grid.
# Exits 77 (ctest: Skipped) with the reason when Chromium, python3 or gnuplot is missing.
set -euo pipefail

gpubench=${1:?usage: report_browser_test.sh GPUBENCH SOURCE_DIR}
src=${2:?usage: report_browser_test.sh GPUBENCH SOURCE_DIR}
tuning_tool=${3:-}
here=$(cd "$(dirname "$0")" && pwd)

skip() { echo "SKIPPED: $*"; exit 77; }
chromium=""
for c in chromium chromium-browser google-chrome-stable google-chrome; do
  if command -v "$c" >/dev/null 2>&1; then chromium=$(command -v "$c"); break; fi
done
[ -n "$chromium" ] || skip "no Chromium on PATH (chromium, chromium-browser, google-chrome); install it with" \
  "scripts/setup-deps.sh --browser (Debian: apt-get install chromium), or run 'make test-browser'"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the screenshot and the DOM"
command -v gnuplot >/dev/null 2>&1 || skip "gnuplot is needed to draw the report (apt-get install gnuplot-nox)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpubench-browser-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

# browse PAGE LOG FLAGS...: one Chromium run (FLAGS: --screenshot=FILE, or --dump-dom to stdout),
# its log in LOG. Offline: every host name resolves to nothing. Its own profile directory, so no
# user's browser state is touched; --no-sandbox and --disable-dev-shm-usage let it run as root and
# in containers with a small /dev/shm.
browse() {
  local page=$1 log=$2
  shift 2
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-extensions --no-first-run \
    --user-data-dir="$tmp/chromium-profile" --host-resolver-rules="MAP * ~NOTFOUND" --hide-scrollbars \
    --enable-logging=stderr --v=0 --window-size=1280,2000 "$@" "file://$page" 2>"$log"
}

check_page() {
  local name=$1 page=$2
  shift 2
  if ! browse "$page" "$tmp/$name-shot.log" --screenshot="$tmp/$name.png" >/dev/null; then
    echo "FAIL: $name: chromium failed to take a screenshot:"; tail -20 "$tmp/$name-shot.log"; fail=1; return
  fi
  if ! browse "$page" "$tmp/$name-dom.log" --dump-dom >"$tmp/$name.dom.html"; then
    echo "FAIL: $name: chromium failed to dump the DOM:"; tail -20 "$tmp/$name-dom.log"; fail=1; return
  fi
  # Chromium logs console messages (script errors, blocked loads) as "...:CONSOLE:..." lines.
  if grep -h ":CONSOLE" "$tmp/$name-shot.log" "$tmp/$name-dom.log"; then
    echo "FAIL: $name: the page logged console messages (above)"; fail=1
  else
    echo "ok: $name: no console message"
  fi
  read -r width height colours inked < <(python3 "$here/png_tool.py" stats "$tmp/$name.png")
  if [ "$colours" -lt 64 ] || ! python3 -c "import sys; sys.exit(0 if float('$inked') > 0.05 else 1)"; then
    echo "FAIL: $name: the screenshot looks blank (${width}x${height}, $colours colours, $inked of it not white)"; fail=1
  else
    echo "ok: $name: screenshot ${width}x${height}, $colours colours, $inked of it not white"
  fi
  python3 "$here/check_report.py" "$tmp/$name.dom.html" --live "$chromium" "$page" --shot "$tmp/$name-first.png" "$@" |
    sed "s/^/$name: /" || fail=1
}

cd "$src"
# Seven chapters' summaries on one first screen, from committed profiles: the H100's chapters 1-5
# and 7, and the H200's chapter 7 (a second GPU: each summary then names its profile and GPU).
# Chapter 1 first: its short ceilings table puts a roofline and a box plot inside the screenshot.
ref=profiles/reference
profiles=("$ref/h100-ch01.json" "$ref/h100-ch02.json" "$ref/h100-ch03-metrics.json" "$ref/h100-ch04.json"
          "$ref/h100-ch05.json" "$ref/h100-ch07.json" "$ref/h200-ch07.json")
"$gpubench" report "${profiles[@]}" --out "$tmp/report.html"
check_page report "$tmp/report.html" "${profiles[@]}"

# A comparison: the sixth H200 run against the first, with the runs between as history.
"$gpubench" report "$ref/h200-ch01-r6.json" --compare "$ref/h200-ch01.json" \
  --history "$ref/h200-ch01-r2.json" "$ref/h200-ch01-r3.json" "$ref/h200-ch01-r4.json" "$ref/h200-ch01-r5.json" \
  --out "$tmp/compare.html"
check_page compare "$tmp/compare.html" --compare "$ref/h200-ch01-r6.json"

# A tuning grid (made up in code, tests/fixtures/synthetic_tuning.hpp): its heatmap and table.
if [ -n "$tuning_tool" ]; then
  "$tuning_tool" "$tmp/tuning.json"
  "$gpubench" report "$tmp/tuning.json" --out "$tmp/tuning.html"
  check_page tuning "$tmp/tuning.html" "$tmp/tuning.json"
fi

[ "$fail" -eq 0 ] && echo "PASSED: $($chromium --version 2>/dev/null | head -1)"
exit "$fail"
