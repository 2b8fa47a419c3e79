#!/usr/bin/env python3
"""How an `ab` session would have judged its records with fewer workers a build: keeps the rounds
of its first K pairs of workers only, in both profiles, and judges each cut with `gpubench compare`.

usage: scripts/analysis/ab-fewer-workers.py GPUBENCH BASE.json NEW.json K [K...]
BASE.json and NEW.json: one `gpubench ab` session's --out-base and --out-new. For each K (at most
the session's workers a build) prints the records resolving 10% and 5% (`resolvable_pct`), the
median degrees of freedom and the cycle spread, as `gpubench compare BASE NEW --threshold 2 --json`
reports them on the cut profiles. Cycle c ran on pair c mod K of the session, base first in
the first sweep over the pairs and new first in the next, so the first K pairs keep both orders
and every cycle they took: the cut is the session those K pairs would have made, on the same host
at the same moments, with the cycles a size took for all pairs (a session started with K workers
would have planned its own). Comparing cuts of one session holds the host's noise fixed, which
separate sessions cannot.

The cut profiles are rebuilt so that gpubench's reader accepts them (ab_profiles.py). Exit 0; 1 when compare refuses a cut profile (its message is printed); 2 on bad arguments.
"""
import sys
import tempfile

from ab_profiles import judge, keep_rounds, resolving, session_arguments


def cut(profile, k):
    """The profile with only the rounds of workers 0..k-1 (their samples and per-sample arrays)."""
    p = keep_rounds(profile, lambda record, r: r.get("process", 0) < k)
    p["options"]["ab_workers_per_build"] = k
    return p


def main(argv):
    gpubench, base, new, rest = session_arguments(argv, __doc__)
    workers = base["options"]["ab_workers_per_build"]
    ks = [int(k) for k in rest]
    if any(k < 2 or k > workers for k in ks):
        print(f"each K must be 2..{workers}, the session's workers a build", file=sys.stderr)
        return 2
    print(f"{'pairs':>5}  {'resolving 10%':>13}  {'resolving 5%':>12}  {'df (median)':>11}  {'cycle spread':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for k in ks:
            c, why = judge(gpubench, cut(base, k), cut(new, k), tmp, f"k{k}")
            if c is None:  # compare refused the cut profiles: say why
                print(f"K={k}: {why}", file=sys.stderr)
                return 1
            r10, r5, n, df = resolving(c)
            print(f"{k:>5}  {r10:>6} of {n:<4}  {r5:>5} of {n:<4}  {df:>11.1f}  {c['cycle_spread_pct']:>11.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
