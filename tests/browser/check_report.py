#!/usr/bin/env python3
"""Checks the DOM Chromium built from a gpubench report (chromium --dump-dom) against the profiles
the report was made from, with the standard library only.

  check_report.py DOM [--compare] PROFILE...

Every profile must have its section, every chapter of it a section with a roofline <svg>, every
pair a section with its table and a box-plot <svg>, every record a table row; nothing may point
outside the page (src, href, url(), <script>, <link>, <iframe>, ...); with --compare, the verdicts
must come regressions first. Prints what is wrong and exits 1, or prints a summary and exits 0.
"""
import json
import sys
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
            for kind in ("roofline", "boxplot"):
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


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    dom_path, rest = argv[0], argv[1:]
    compare = "--compare" in rest
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

    for p in problems:
        print(f"FAIL: {p}")
    if problems:
        return 1
    print(f"ok: {len(profiles)} profile sections, {chapters} chapters with a roofline, {pairs} pairs, {rows} record rows"
          + (f", {len(report.verdict_rows)} verdicts regressions first" if compare else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
