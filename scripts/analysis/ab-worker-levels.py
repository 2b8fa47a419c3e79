#!/usr/bin/env python3
"""Each worker's level in one `gpubench ab` session, record by record.

For every record timed in both profiles, a worker's level is the mean of its rounds' log medians.
Prints, per record and build, the spread of the levels over the workers (sd, percent) and
Pearson's r between them and the workers' levels on the first record of the same pair and variant
(at another size): r near 1 says the level belongs to the worker, not to the size's state. With
--covariate FIELD, also r between the levels and the mean of the rounds' FIELD (a number each
round of the profile carries, e.g. placement_bytes; log taken where every value is positive).

usage: ab-worker-levels.py BASE.json NEW.json [--covariate FIELD] [--only SUBSTRING]
"""
import argparse
import json
import math
import statistics


def levels(record, field):
    """{worker: (mean log round median, mean of the rounds' field or None)}"""
    samples, i, per = record["timing"]["samples_s"], 0, {}
    for r in record["timing"]["rounds"]:
        n = r["samples"]
        logs, covs = per.setdefault(r.get("process", 0), ([], []))
        logs.append(math.log(statistics.median(samples[i:i + n])))
        if field and isinstance(r.get(field), (int, float)):
            covs.append(float(r[field]))
        i += n
    return {w: (sum(l) / len(l), sum(c) / len(c) if c else None) for w, (l, c) in per.items()}


def pearson(x, y):
    if len(x) < 3:
        return float("nan")
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx, syy = sum((a - mx) ** 2 for a in x), sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--covariate", help="a numeric field of each round")
    ap.add_argument("--only", help="records whose id contains this")
    a = ap.parse_args()
    for side, path in (("base", a.base), ("new", a.new)):
        first = {}  # (pair, variant) -> levels of its first record
        for r in json.load(open(path))["records"]:
            if r.get("status") != "passed" or not r["timing"]["rounds"]:
                continue
            if a.only and a.only not in r["id"]:
                continue
            lv = levels(r, a.covariate)
            workers = sorted(lv)
            y = [lv[w][0] for w in workers]
            line = f"{side:4s} {r['id'][:64]:64s} workers {len(workers):2d}  sd {100 * statistics.pstdev(y):5.2f}%"
            ref = first.setdefault((r["pair"], r["variant"]), lv)
            if ref is not lv and all(w in ref for w in workers):
                line += f"  r(first size) {pearson(y, [ref[w][0] for w in workers]):+.2f}"
            covs = [lv[w][1] for w in workers]
            if a.covariate and all(c is not None for c in covs):
                x = [math.log(c) for c in covs] if all(c > 0 for c in covs) else covs
                line += f"  r({a.covariate}) {pearson(y, x):+.2f}"
            print(line)


if __name__ == "__main__":
    main()
