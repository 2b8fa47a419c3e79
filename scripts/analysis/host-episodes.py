#!/usr/bin/env python3
"""When, within each plain run, its host-timed records ran slow, and for how long.

Reads several profiles of the same selection, each from its own `gpubench run`. A record's ratio
in a run is its median over the median of its medians across the runs; a round's ratio is that
round's median over the same. Sizes are listed in the order the run measured them, each at its
approximate start in seconds: the sum of the earlier sizes' setup, verification and sampling
times (goodput and counters are not counted, so later starts run early by up to a second).

For each run with a host-timed record at or above --slow (default 1.5) times its median, prints
the run's sizes from the first such size to the last, with every host-timed variant's ratio and
the first variant's round ratios, so that one can tell an episode a few sizes long (every round
of those sizes slow, the sizes around them not) from a run slow from start to end.

usage: host-episodes.py PROFILE.json... [--slow RATIO]
"""
import argparse
import json
import statistics


def median_of(record):
    return statistics.median(record["timing"]["samples_s"])


def round_medians(record):
    samples, i, out = record["timing"]["samples_s"], 0, []
    for r in record["timing"].get("rounds", []):
        n = r["samples"]
        out.append(statistics.median(samples[i:i + n]))
        i += n
    return out


def timed(record):
    return record.get("status") == "passed" and record["timing"].get("samples_s")


def sizes_in_order(profile):
    """[(pair, size text, [records])] in the order the run measured them."""
    out = []
    for r in profile["records"]:
        key = (r["pair"], json.dumps(r["size"], sort_keys=True))
        if not out or out[-1][0:2] != key:
            out.append((key[0], key[1], []))
        out[-1][2].append(r)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("profiles", nargs="+")
    ap.add_argument("--slow", type=float, default=1.5)
    a = ap.parse_args()
    runs = [json.load(open(p)) for p in a.profiles]
    medians = {}
    for run in runs:
        for r in run["records"]:
            if timed(r) and r["timing"]["method"] == "host_wall":
                medians.setdefault(r["id"], []).append(median_of(r))
    center = {k: statistics.median(v) for k, v in medians.items() if len(v) == len(runs)}
    print(f"{len(center)} host-timed records in all {len(runs)} runs; a run is listed where one is "
          f">= {a.slow:g}x its median")
    for path, run in zip(a.profiles, runs):
        rows, t = [], 0.0
        for pair, size, recs in sizes_in_order(run):
            start = t
            t += max((r["timing"].get("setup_s", 0) for r in recs), default=0)
            t += sum(r["timing"].get("verify_s", 0) + r["timing"].get("wall_s", 0) for r in recs)
            host = [r for r in recs if timed(r) and r["id"] in center]
            if not host:
                continue
            ratios = [median_of(r) / center[r["id"]] for r in host]
            rounds = [m / center[host[0]["id"]] for m in round_medians(host[0])]
            rows.append((start, t - start, pair, size, ratios, rounds))
        slow = [i for i, row in enumerate(rows) if max(row[4]) >= a.slow]
        if not slow:
            continue
        print(f"\n{path}: slow from {rows[slow[0]][0]:.1f} s to {rows[slow[-1]][0] + rows[slow[-1]][1]:.1f} s "
              f"of {t:.1f} s")
        for start, took, pair, size, ratios, rounds in rows[max(0, slow[0] - 1):slow[-1] + 2]:
            mark = "*" if max(ratios) >= a.slow else " "
            print(f" {mark} {start:6.2f} s +{took:5.2f}  {pair} {size}")
            print(f"      variants {' '.join(f'{x:.2f}' for x in ratios)}   "
                  f"first variant's rounds {' '.join(f'{x:.2f}' for x in rounds)}")


if __name__ == "__main__":
    main()
