#!/usr/bin/env python3
"""The tuned configurations in gpubench profiles: best per (pair, size, GPU), whether the choice is
stable when re-run, and whether it differs between GPUs (chapter 6, docs/chapters.md, "Tuning pairs and the tuning key").

usage: scripts/analysis/tuning-report.py [--bar PCT] PROFILE.json [PROFILE.json ...]

For each profile: every tuning pair's size, its best configuration (rank 1), the runner-up's gap
and how many configurations sit within 2% of the best.

Stability (two or more profiles from the same GPU model): for every ordered pair of runs (A, B),
how much slower A's tuned configuration runs in B than B's own best. The bar is that the tuned
configuration is within 3% of the best of the grid when re-run; the exit code is 1 when any gap
exceeds --bar (default 3), else 0.

Across GPUs (profiles from different device names): whether the best configuration differs, and
what each GPU's choice costs on the other.
"""
import argparse
import itertools
import json
import sys
from collections import defaultdict


def size_text(size):
    return ",".join(f"{k}={v}" for k, v in size.items())


def load(path):
    with open(path) as f:
        p = json.load(f)
    gpu = p["provenance"]["device"]["name"]
    cc = f'{p["provenance"]["device"]["cc_major"]}.{p["provenance"]["device"]["cc_minor"]}'
    # (pair id, size) -> {config: median} over the timed configurations
    medians = defaultdict(dict)
    best = {}
    for r in p["records"]:
        t = r.get("tuning")
        if not t or not r.get("summary"):
            continue
        key = (f'ch{r["chapter"]:02d}/{r["pair"]}', size_text(r["size"]))
        medians[key][r["variant"]] = r["summary"]["median"]
        if t["rank"] == 1:
            best[key] = r["variant"]
    return {"path": path, "gpu": gpu, "cc": cc, "medians": medians, "best": best}


def fmt_us(s):
    return f"{s * 1e6:.2f} us"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bar", type=float, default=3.0, help="stability bar, percent (default 3)")
    ap.add_argument("profiles", nargs="+")
    args = ap.parse_args()
    runs = [load(p) for p in args.profiles]

    for run in runs:
        print(f"== {run['path']}: {run['gpu']} (sm {run['cc']})")
        for key in sorted(run["medians"]):
            meds = run["medians"][key]
            b = run["best"].get(key) or min(meds, key=meds.get)
            others = [c for c in sorted(meds, key=meds.get) if c != b]
            gap = f"runner-up {others[0]} +{(meds[others[0]] / meds[b] - 1) * 100:.1f}%" if others else "only one timed"
            near = sum(1 for c in others if meds[c] <= meds[b] * 1.02)
            print(f"  {key[0]} [{key[1]}]: best {b} {fmt_us(meds[b])}; {gap}; {near} within 2%; {len(meds)} timed")

    failed = False
    by_gpu = defaultdict(list)
    for run in runs:
        by_gpu[run["gpu"]].append(run)
    for gpu, same in by_gpu.items():
        if len(same) < 2:
            continue
        print(f"\n== stability on {gpu}: A's tuned configuration re-measured in B, against B's best (bar {args.bar:g}%)")
        for a, b in itertools.permutations(same, 2):
            for key in sorted(set(a["best"]) & set(b["medians"])):
                choice = a["best"][key]
                if choice not in b["medians"][key]:
                    print(f"  {key[0]} [{key[1]}]: {choice} not timed in {b['path']}")
                    failed = True
                    continue
                mb = b["medians"][key]
                best_b = b["best"].get(key) or min(mb, key=mb.get)
                gap = (mb[choice] / mb[best_b] - 1) * 100
                verdict = "ok" if gap <= args.bar else "OVER THE BAR"
                same_choice = "same choice" if choice == best_b else f"B chose {best_b}"
                print(f"  {key[0]} [{key[1]}]: {a['path']} -> {b['path']}: {choice} +{gap:.2f}% ({same_choice}) {verdict}")
                failed = failed or gap > args.bar

    gpus = list(by_gpu)
    for g1, g2 in itertools.combinations(gpus, 2):
        r1, r2 = by_gpu[g1][0], by_gpu[g2][0]
        print(f"\n== {g1} vs {g2} (first profile of each)")
        for key in sorted(set(r1["best"]) & set(r2["best"])):
            c1, c2 = r1["best"][key], r2["best"][key]
            if c1 == c2:
                print(f"  {key[0]} [{key[1]}]: both choose {c1}")
                continue
            cost = []
            for name, run, other in ((g1, r1, c2), (g2, r2, c1)):
                m = run["medians"][key]
                if other in m:
                    cost.append(f"{other} on {name}: +{(m[other] / m[run['best'][key]] - 1) * 100:.1f}%")
            print(f"  {key[0]} [{key[1]}]: {g1} chooses {c1}, {g2} chooses {c2} ({'; '.join(cost)})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
