#!/usr/bin/env python3
"""Checks the DOM Chromium built from a gpubench report (chromium --dump-dom) against the profiles
the report was made from, with the standard library only.

  check_report.py DOM [--compare] [--live CHROMIUM PAGE [--shot FIRST.png]] PROFILE...

Every profile must have its section, every chapter of it a section with a roofline <svg>, every
pair a section with its table, a box-plot <svg> and a speedup chart <svg> (a tuning grid: a
heatmap), every record a table row; nothing may point
outside the page (src, href, url(), <script>, <link>, <iframe>, ...); with --compare, the verdicts
must come regressions first.

With --live, the page is also laid out by CHROMIUM (driven over its DevTools pipe, devtools.py) as
a reader sees it, 1400 × 900 CSS pixels:
  * the first screen, unscrolled, shows for every chapter of every profile each pair's best
    speedup with its interval (a number like "9.58× [9.41, 9.75]" and its bar), wholly inside it;
  * every text of every SVG renders at 10 px or more (its computed font size times the scale its
    SVG is drawn at), with every <details> opened so that the charts on demand count too.
--shot saves that first screen as a PNG.

Prints what is wrong and exits 1, or prints a summary and exits 0.
"""
import json
import os
import re
import sys
import tempfile
from html.parser import HTMLParser

VERDICT_RANK = {"slower": 0, "inconclusive": 1, "faster": 2, "same": 3}
FORBIDDEN_TAGS = {"script", "link", "iframe", "object", "embed", "img", "image", "audio", "video", "source", "base"}


class Report(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []          # open elements: (tag, attrs)
        self.sections = []       # (class, attrs, path of enclosing section classes/ids)
        self.problems = []
        self.svgs_in = {}        # section key -> {"roofline": n, "boxplot": n}
        self.rows_in_pair = {}   # pair section id -> number of record rows
        self.verdict_rows = []   # classes of compare table rows, in order
        self.footer = False

    def section_key(self, kind):
        for tag, attrs in reversed(self.stack):
            if tag == "section" and kind in attrs.get("class", "").split():
                return attrs.get("id")
        return None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in FORBIDDEN_TAGS:
            self.problems.append(f"<{tag}> in the page: {a}")
        for name, value in attrs:
            v = (value or "").strip()
            if name in ("src", "srcset", "data", "poster", "action", "formaction"):
                self.problems.append(f"<{tag} {name}={v!r}>: the page must load nothing")
            if name in ("href", "xlink:href") and not v.startswith("#"):
                self.problems.append(f"<{tag} {name}={v!r}>: links must stay inside the page")
            if "url(" in v.replace(" ", "") and "url(#" not in v.replace(" ", ""):
                self.problems.append(f"<{tag} {name}={v!r}>: url() outside the page")
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...>: an event handler (script)")
        if tag == "section":
            self.sections.append((a.get("class", ""), a))
        if tag == "svg":
            for kind in ("roofline", "boxplot", "speedup", "heatmap"):
                if kind in a.get("class", "").split():
                    key = self.section_key("chapter" if kind == "roofline" else "pair")
                    self.svgs_in.setdefault(key, {}).setdefault(kind, 0)
                    self.svgs_in[key][kind] += 1
        if tag == "tr" and a.get("id") and self.section_key("pair"):
            key = self.section_key("pair")
            self.rows_in_pair[key] = self.rows_in_pair.get(key, 0) + 1
        if tag == "tr" and self.section_key("compare") and a.get("class", "").startswith("v-"):
            self.verdict_rows.append(a["class"][2:])
        if tag == "footer":
            self.footer = True
        if tag not in ("meta", "br", "hr", "input", "col", "wbr", "path", "use", "rect", "circle", "line", "polyline",
                       "polygon", "ellipse", "stop", "fecomposite", "feflood", "image"):
            self.stack.append((tag, a))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self.stack and self.stack[-1][0] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        pass


VIEWPORT = (1400, 900)
MIN_FONT_PX = 10.0

# The summary's rows as laid out: where each sits in the unscrolled viewport and what it says.
FIRST_SCREEN_JS = """(() => {
  window.scrollTo(0, 0);
  const rows = [];
  for (const card of document.querySelectorAll('#summary .card')) {
    for (const tr of card.querySelectorAll('tr[data-pair]')) {
      const r = tr.getBoundingClientRect();
      const speedup = tr.querySelector('td.speedup');
      rows.push({chapter: Number(card.dataset.chapter), pair: tr.dataset.pair, top: r.top, bottom: r.bottom,
                 left: r.left, right: r.right, speedup: speedup ? speedup.textContent : '',
                 bar: !!tr.querySelector('.track .range') && !!tr.querySelector('.track .est')});
    }
  }
  return rows;
})()"""

# Every SVG text run as drawn: its computed font size times the scale of its transform to the
# screen (the SVG's viewBox fitted to its CSS box, and any rotation gnuplot wraps it in).
FONT_SIZES_JS = """(() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const out = [];
  for (const t of document.querySelectorAll('svg text, svg tspan')) {
    let own = '';
    for (const n of t.childNodes) if (n.nodeType === Node.TEXT_NODE) own += n.textContent;
    if (!own.trim()) continue;
    const svg = t.closest('svg');
    const m = t.getScreenCTM();
    const px = m ? parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b) : -1;
    out.push({text: own.trim().slice(0, 40), px: px,
              chart: (svg.getAttribute('class') || '') + ': ' + (svg.getAttribute('aria-label') || '').slice(0, 60)});
  }
  return out;
})()"""


def live_checks(chromium, page, profiles, shot):
    """The --live checks; returns (problems, summary line)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from devtools import Browser  # noqa: E402 (beside this file)

    problems = []
    wanted = set()
    for path in profiles:
        with open(path, encoding="utf-8") as f:
            for r in json.load(f)["records"]:
                wanted.add((r["chapter"], r["pair"]))
    with tempfile.TemporaryDirectory(prefix="gpubench-devtools-") as profile_dir:
        with Browser(chromium, profile_dir) as b:
            b.open("file://" + os.path.abspath(page), *VIEWPORT)
            rows = b.evaluate(FIRST_SCREEN_JS)
            if shot:
                b.screenshot(shot)
            texts = b.evaluate(FONT_SIZES_JS)
            console = list(b.console)
    seen = set()
    interval = re.compile(r"\d×.*\[[0-9.e+-]+, [0-9.e+-]+\]")
    for r in rows:
        key = (r["chapter"], r["pair"])
        seen.add(key)
        where = f"first screen: ch{key[0]:02d}/{key[1]}"
        if r["bottom"] > VIEWPORT[1] or r["top"] < 0 or r["right"] > VIEWPORT[0] or r["left"] < 0:
            problems.append(f"{where}: its summary row lies outside the {VIEWPORT[0]}x{VIEWPORT[1]} first screen "
                            f"(top {r['top']:.0f}, bottom {r['bottom']:.0f} px)")
        if not interval.search(r["speedup"]):
            problems.append(f"{where}: no speedup with an interval in its summary row ({r['speedup']!r})")
        if not r["bar"]:
            problems.append(f"{where}: no interval bar in its summary row")
    for key in sorted(wanted - seen):
        problems.append(f"first screen: ch{key[0]:02d}/{key[1]} has no summary row")
    small = [t for t in texts if t["px"] < MIN_FONT_PX]
    for t in small[:20]:
        problems.append(f"SVG text {t['text']!r} renders at {t['px']:.1f} px (< {MIN_FONT_PX:g}) in {t['chart']}")
    if len(small) > 20:
        problems.append(f"... and {len(small) - 20} more SVG texts under {MIN_FONT_PX:g} px")
    if not texts:
        problems.append("no SVG text found to measure")
    for c in console:
        problems.append(f"console while measuring: {c}")
    smallest = min((t["px"] for t in texts), default=0)
    return problems, (f"first screen {VIEWPORT[0]}x{VIEWPORT[1]} shows {len(rows)} summary rows ({len(seen)} pairs) "
                      f"with speedups and intervals; "
                      f"{len(texts)} SVG texts, the smallest at {smallest:.1f} px")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    dom_path, rest = argv[0], list(argv[1:])
    compare = "--compare" in rest
    live = shot = None
    if "--live" in rest:
        i = rest.index("--live")
        live = rest[i + 1:i + 3]
        del rest[i:i + 3]
    if "--shot" in rest:
        i = rest.index("--shot")
        shot = rest[i + 1]
        del rest[i:i + 2]
    profiles = [p for p in rest if p != "--compare"]
    report = Report()
    with open(dom_path, encoding="utf-8") as f:
        text = f.read()
    if "@import" in text:
        report.problems.append("@import in the page")
    report.feed(text)
    problems = report.problems
    if not report.footer:
        problems.append("no <footer>: the page did not load to its end")

    by_id = {a.get("id"): (cls, a) for cls, a in report.sections}
    chapters = pairs = rows = 0
    for index, path in enumerate(profiles, start=1):
        with open(path, encoding="utf-8") as f:
            prof = json.load(f)
        anchor = f"p{index}"
        if anchor not in by_id or by_id[anchor][1].get("data-source") != path:
            problems.append(f"{path}: no profile section {anchor} with data-source={path!r}")
            continue
        records_of = {}
        for r in prof["records"]:
            records_of.setdefault((r["chapter"], r["pair"]), []).append(r)
        for ch in sorted({c for c, _ in records_of}):
            sid = f"{anchor}-ch{ch:02d}"
            if sid not in by_id or "chapter" not in by_id[sid][0].split():
                problems.append(f"{path}: chapter {ch} has no section #{sid}")
                continue
            chapters += 1
            if report.svgs_in.get(sid, {}).get("roofline", 0) != 1:
                problems.append(f"{path}: chapter {ch} (#{sid}) has no roofline <svg>")
        for (ch, pair), records in records_of.items():
            sid = f"{anchor}-ch{ch:02d}-{pair}"
            if sid not in by_id:
                problems.append(f"{path}: pair ch{ch:02d}/{pair} has no section #{sid}")
                continue
            pairs += 1
            timed = any(r.get("status") == "passed" and r.get("timing", {}).get("samples_s") for r in records)
            if timed and report.svgs_in.get(sid, {}).get("boxplot", 0) != 1:
                problems.append(f"{path}: pair ch{ch:02d}/{pair} has no box plot <svg>")
            # A speedup chart where two variants were timed, or for a tuning grid its heatmap.
            kind = "heatmap" if any("tuning" in r for r in records) else "speedup"
            timed_variants = {r["variant"] for r in records if r.get("status") == "passed" and r.get("timing", {}).get("samples_s")}
            if len(timed_variants) > 1 and report.svgs_in.get(sid, {}).get(kind, 0) != 1:
                problems.append(f"{path}: pair ch{ch:02d}/{pair} has no {kind} <svg>")
            if report.rows_in_pair.get(sid, 0) != len(records):
                problems.append(f"{path}: pair ch{ch:02d}/{pair}: {report.rows_in_pair.get(sid, 0)} table rows for "
                                f"{len(records)} records")
            rows += report.rows_in_pair.get(sid, 0)

    if compare:
        if "compare" not in by_id:
            problems.append("--compare: no section #compare")
        elif not report.verdict_rows:
            problems.append("--compare: the comparison lists no verdict")
        ranks = [VERDICT_RANK.get(v, 9) for v in report.verdict_rows]
        if ranks != sorted(ranks):
            problems.append(f"--compare: verdicts not regressions first: {report.verdict_rows}")

    live_summary = ""
    if live:
        live_problems, live_summary = live_checks(live[0], live[1], profiles, shot)
        problems += live_problems

    for p in problems:
        print(f"FAIL: {p}")
    if problems:
        return 1
    print(f"ok: {len(profiles)} profile sections, {chapters} chapters with a roofline, {pairs} pairs, {rows} record rows"
          + (f", {len(report.verdict_rows)} verdicts regressions first" if compare else ""))
    if live_summary:
        print(f"ok: {live_summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
