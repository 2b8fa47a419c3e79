#!/usr/bin/env python3
"""Writes the small hostile inputs of tests/unit/hostile_input_test.cpp into tests/hostile/cases/.

Each case is a profile gpubench wrote (a fuzz seed in tests/fuzz/corpus/) with one lie or one
hostile string put in, so that the only thing wrong with it is what its name says. The big inputs
(200 MB of '[', a record of a million samples, FIFOs, devices, hostile file names) are made by the
test itself. The committed files are this script's output; re-run it after changing it:
    python3 tests/hostile/make_cases.py            (or: --check, to compare without writing)
The cases also seed the fuzz target (scripts/fuzz.sh reads tests/hostile/cases/ as a corpus).
"""
import copy
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")
OUT = os.path.join(ROOT, "tests", "hostile", "cases")

# A name that breaks every output kind at once: XML's CDATA end, markup, quotes, a formula prefix,
# markdown's pipe and link syntax, a bidi override (U+202E) and a zero-width space (U+200B).
HOSTILE_NAME = "=cmd|' ]]> <b>&amp;</b> \"q\" [x](http://e.test) | \u202eevil\u200b"


def seed(name="seed-h100-ch01-r2.json"):
    """A fuzz seed: a few records of a profile gpubench wrote (the default: two records, a
    transfer's baseline and optimized variant at one size)."""
    with open(os.path.join(CORPUS, name), encoding="utf-8") as f:
        return json.load(f)


def dump(profile):
    return json.dumps(profile, indent=1, ensure_ascii=False) + "\n"


def untimed(record, status, reason, disposition):
    """The record as the runner writes one that was not timed: no samples, no summary, no figures."""
    r = copy.deepcopy(record)
    r["status"] = status
    r["reason"] = reason
    r["verification"]["disposition"] = disposition
    t = r["timing"]
    t["samples_s"], t["sm_clock_mhz"], t["throttled"] = [], [], []
    t.pop("rounds", None)
    t.pop("span_s", None)
    r["summary"] = None
    r["throughput"] = {"bytes_per_s": 0.0, "flops_per_s": 0.0, "s_per_item": 0.0}
    r["floor"] = None
    r["speedup_vs_baseline"] = None
    return r


def resized(record, direction):
    r = copy.deepcopy(record)
    r["size"]["dir"] = direction
    r["id"] = r["id"].replace("dir=h2d", "dir=" + direction)
    return r


def cases():
    out = {}

    # 5: derived fields that lie (report and export showed them as stored).
    p = seed()
    p["records"][1]["speedup_vs_baseline"] = 42.0
    out["forged-speedup.json"] = dump(p)
    p = seed()
    p["records"][1]["speedup_vs_baseline"] = 1e308
    out["forged-speedup-1e308.json"] = dump(p)
    p = seed()
    p["records"][0]["throughput"]["bytes_per_s"] = 9.9e12
    out["forged-throughput.json"] = dump(p)
    p = seed()
    p["records"][0]["floor"]["fraction"] = 0.99
    out["forged-floor-fraction.json"] = dump(p)

    # 6: CSV formula injection through the free-text reason.
    p = seed()
    base = p["records"][0]
    p["records"][0]["reason"] = '=HYPERLINK("http://e.test/x","click")'
    p["records"][1]["reason"] = "+cmd|' /C calc'!A0"
    p["records"].append(untimed(resized(base, "d2h"), "skipped", "-1+1", "not_verified"))
    p["records"].append(untimed(resized(p["records"][1], "d2h"), "skipped", "@SUM(1,2)", "not_verified"))
    out["csv-formula.json"] = dump(p)

    # 7, 11: hostile names in every text field an output shows (device, host, reason); chapter 4
    # records have FLOPs and bytes, so that the roofline draws them.
    p = seed("seed-h100-ch04.json")
    p["provenance"]["device"]["name"] = HOSTILE_NAME
    p["provenance"]["hostname"] = HOSTILE_NAME
    p["records"][1]["reason"] = HOSTILE_NAME
    out["hostile-names.json"] = dump(p)

    # 8: a sample beyond a double's range (nlohmann's "number overflow" was exit 1).
    text = dump(seed())
    first = text.index('"samples_s": [') + len('"samples_s": [')
    value_end = text.index(",", first)
    out["sample-1e999.json"] = text[:first] + "\n   1e999" + text[value_end:]

    # 9: records without samples: failed, and "passed" with none.
    p = seed()
    p["records"][0] = untimed(p["records"][0], "failed", "wrong result at element 3", "incorrect")
    p["records"][1]["speedup_vs_baseline"] = None  # its baseline failed: no speedup
    out["failed-no-samples.json"] = dump(p)
    p = seed()
    p["records"][0] = untimed(p["records"][0], "passed", "", "reference")
    p["records"][1]["speedup_vs_baseline"] = None
    out["passed-no-samples.json"] = dump(p)

    # 10: subnormal samples (positive, yet their throughput is infinite). No summary, so that the
    # samples are the only thing wrong.
    p = seed()
    r = p["records"][0]
    r["timing"]["samples_s"] = [1e-320] * len(r["timing"]["samples_s"])
    r["summary"] = None
    r["throughput"] = {"bytes_per_s": 0.0, "flops_per_s": 0.0, "s_per_item": 0.0}
    r["floor"] = None
    p["records"][1]["speedup_vs_baseline"] = None
    out["subnormal-samples.json"] = dump(p)

    # Doubtful item: a key given twice (nlohmann kept the last one).
    text = dump(seed())
    at = text.index('"status": "passed"')
    out["duplicate-key.json"] = text[:at] + '"status": "failed",\n  ' + text[at:]

    # Deep nesting, small: 100 000 '[' (the 200 MB version is made by the test).
    out["deep-nesting.json"] = "[" * 100_000
    return out


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        print("usage: make_cases.py [--check]", file=sys.stderr)
        return 2
    stale = []
    os.makedirs(OUT, exist_ok=True)
    for name, text in sorted(cases().items()):
        path = os.path.join(OUT, name)
        if check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        stale.append(name)
            except FileNotFoundError:
                stale.append(name)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if stale:
        print("tests/hostile/cases is stale (" + ", ".join(stale) + "): run python3 tests/hostile/make_cases.py",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
