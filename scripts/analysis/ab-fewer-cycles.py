#!/usr/bin/env python3
"""How an `ab` session would have judged its records had some sizes stopped after their first C
cycles: keeps those sizes' first C cycles only, in both profiles, and judges the cut with
`gpubench compare`.

usage: scripts/analysis/ab-fewer-cycles.py GPUBENCH BASE.json NEW.json SIZE C [C...]
BASE.json and NEW.json: one `gpubench ab` session's --out-base and --out-new. SIZE picks the sizes
to cut, as `pair:axis=value,...` (`pinned_transfers:dir=d2h,size_mib=1024`); every axis named must
match, and axes left out match any value. For each C (whole sweeps keep both orders: a multiple of
twice the session's workers a build) prints the records resolving 10% and 5% (`resolvable_pct`),
the median degrees of freedom and, for the cut sizes' records, each one's `resolvable_pct` as
`gpubench compare BASE NEW --threshold 2 --json` reports them. A size's rounds do not depend on how
many cycles follow them (each round samples the share of its record's budget that one of the
planned cycles has), so the cut is what the session would have measured had those sizes stopped
at C, on the same host at the same moments.

The cut profiles are rebuilt so that gpubench's reader accepts them (ab_profiles.py). Exit 0; 1 when
compare refuses a cut profile (its message is printed); 2 on bad arguments.
"""
import sys
import tempfile

from ab_profiles import judge, keep_rounds, resolving, session_arguments


def parse_size(text):
    """(pair, {axis: value}) from `pair:axis=value,...`, or None where the text is malformed."""
    pair, _, axes = text.partition(":")
    wanted = {}
    for item in filter(None, axes.split(",")):
        axis, eq, value = item.partition("=")
        if not eq or not axis:
            return None
        wanted[axis] = value
    return (pair, wanted) if pair else None


def matches(pair, wanted, record_pair, axes):
    """Whether a record of `record_pair` at `axes` ({axis: value as text}) is a size to cut."""
    return record_pair == pair and all(axes.get(a) == v for a, v in wanted.items())


def profile_axes(record):
    """A profile record's size as {axis: value as text}."""
    return {a: str(v) for a, v in record["size"].items()}


def comparison_axes(record):
    """A comparison record's size ("axis=value,...") as {axis: value as text}."""
    return dict(item.partition("=")[::2] for item in filter(None, record["size"].split(",")))


def main(argv):
    gpubench, base, new, rest = session_arguments(argv, __doc__)
    size = parse_size(rest[0]) if rest else None
    if size is None or len(rest) < 2 or not all(c.isdigit() for c in rest[1:]):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    pair, wanted = size
    sweep = 2 * base["options"]["ab_workers_per_build"]
    cs = [int(c) for c in rest[1:]]
    if any(c < sweep or c % sweep for c in cs):
        print(f"each C must be a positive multiple of {sweep}, one sweep over the session's pairs in both orders",
              file=sys.stderr)
        return 2
    if not any(matches(pair, wanted, r["pair"], profile_axes(r)) for r in base["records"]):
        print(f"no record of {argv[2]} is at {rest[0]}", file=sys.stderr)
        return 2
    print(f"{'cycles':>6}  {'resolving 10%':>13}  {'resolving 5%':>12}  {'df (median)':>11}  the cut records' resolvable_pct")
    with tempfile.TemporaryDirectory() as tmp:
        for c in cs:
            def keep(record, round_entry, c=c):
                return not matches(pair, wanted, record["pair"], profile_axes(record)) or round_entry["cycle"] < c
            judged, why = judge(gpubench, keep_rounds(base, keep), keep_rounds(new, keep), tmp, f"c{c}")
            if judged is None:
                print(f"C={c}: {why}", file=sys.stderr)
                return 1
            r10, r5, n, df = resolving(judged)
            cut = [f"{r['variant']} {r['resolvable_pct']:.1f}%" for r in judged["records"]
                   if matches(pair, wanted, r["pair"], comparison_axes(r)) and r["resolvable_pct"] is not None]
            print(f"{c:>6}  {r10:>6} of {n:<4}  {r5:>5} of {n:<4}  {df:>11.1f}  {', '.join(cut)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
