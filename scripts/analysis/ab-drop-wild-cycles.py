#!/usr/bin/env python3
"""What re-taking an `ab` session's wild cycles could at most buy: judges the session again without
the cycles that stray far from their record's others, as if each had been measured again and had
come back ordinary.

usage: scripts/analysis/ab-drop-wild-cycles.py GPUBENCH BASE.json NEW.json R [R...]
BASE.json and NEW.json: one `gpubench ab` session's --out-base and --out-new. A cycle's difference
in a record is log(new round's median / base round's median); the record's spread is 1.4826 times
the median absolute deviation of those differences. A cycle is wild in a record when its difference
lies more than R spreads from both the record's median difference and the median of its own pair
of workers' other cycles: the test that `gpubench compare` reins cycles in with at R = 2
(docs/measurement.md, "Wild cycles"), here on the rounds' medians. It keeps a pair whose cycles
agree with each other whatever level they sit at. A re-take would measure the whole size again, so a cycle wild in any
record of its size leaves every record of that size. For R = 0 nothing is dropped (the session as
it was judged); for each R the script prints the cycles dropped and, from `gpubench compare BASE
NEW --threshold 2 --json` on the cut profiles, the records resolving 10% and 5%, the verdicts
*slower* or *faster*, and the intervals that exclude no change.

An upper bound: a real re-take costs a cycle's time and may itself land wild; and dropping cycles
chosen by their values is only fair where the stray is as likely on either side, which is what an
A/A session's stalls are. Exit 0; 1 when compare refuses a cut profile; 2 on bad arguments.
"""
import collections
import math
import statistics
import sys
import tempfile

from ab_profiles import judge, keep_rounds, resolving, rounds_of, session_arguments, size_key


def round_medians(record):
    """{cycle: (pair of workers, median of the round's samples)} of an `ab` record."""
    return {r["cycle"]: (r.get("process", 0), statistics.median(s)) for r, s in rounds_of(record) if s}


def wild_cycles(base, new, reach):
    """{size key: cycles wild in some record of that size}, at `reach` spreads."""
    news = {(size_key(r), r["variant"]): r for r in new["records"]}
    wild = collections.defaultdict(set)
    for rb in base["records"]:
        rn = news.get((size_key(rb), rb["variant"]))
        if rn is None:
            continue
        a, b = round_medians(rb), round_medians(rn)
        diff = {c: math.log(b[c][1] / a[c][1]) for c in a if c in b and a[c][1] > 0 and b[c][1] > 0}
        if len(diff) < 8:
            continue
        mid = statistics.median(diff.values())
        spread = 1.4826 * statistics.median([abs(x - mid) for x in diff.values()])
        if spread <= 0:
            continue
        by_pair = collections.defaultdict(list)
        for c, x in diff.items():
            by_pair[a[c][0]].append((c, x))
        for c, x in diff.items():
            others = [y for cc, y in by_pair[a[c][0]] if cc != c]
            own = statistics.median(others) if others else mid
            if abs(x - mid) > reach * spread and abs(x - own) > reach * spread:
                wild[size_key(rb)].add(c)
    return wild


def main(argv):
    gpubench, base, new, rest = session_arguments(argv, __doc__)
    try:
        reaches = [float(x) for x in rest]
    except ValueError:
        print("each R must be a number of spreads (0: drop nothing)", file=sys.stderr)
        return 2
    if any(r < 0 for r in reaches):
        print("each R must be 0 or more", file=sys.stderr)
        return 2
    cycles = len({(size_key(r), ri["cycle"]) for r in base["records"] for ri, _ in rounds_of(r)})
    print(f"{'R':>4}  {'cycles dropped':>14}  {'resolving 10%':>13}  {'resolving 5%':>12}  "
          f"{'slower/faster':>13}  {'excluding 0':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        for reach in reaches:
            wild = wild_cycles(base, new, reach) if reach > 0 else {}
            def keep(record, r):
                return r["cycle"] not in wild.get(size_key(record), ())
            c, why = judge(gpubench, keep_rounds(base, keep), keep_rounds(new, keep), tmp, f"r{reach:g}")
            if c is None:
                print(f"R={reach:g}: {why}", file=sys.stderr)
                return 1
            r10, r5, n, _ = resolving(c)
            moved = sum(r["verdict"] in ("slower", "faster") for r in c["records"])
            excluding = sum(1 for r in c["records"]
                            if r.get("ratio") and (r["ratio"]["low"] > 1 or r["ratio"]["high"] < 1))
            dropped = sum(len(v) for v in wild.values())
            print(f"{reach:>4g}  {dropped:>5} of {cycles:<6}  {r10:>6} of {n:<4}  {r5:>5} of {n:<4}  "
                  f"{moved:>13}  {excluding:>11}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
