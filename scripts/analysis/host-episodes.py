#!/usr/bin/env python3
"""When, within each plain run, its host-timed records ran slow, and for how long.

Reads several profiles of the same selection, each from its own `gpubench run`. A record's ratio
in a run is its median over the median of its medians across the runs; a round's ratio is that
round's median over the same. The run's work is listed in the order the run measured it, each
piece at its approximate start in seconds: the sum of the earlier pieces' setup, verification and
sampling times (goodput and counters are not counted, so later starts run early by up to a second).

A piece is a whole size, or with --swept one round of a host-timed size: runs whose host-timed
sizes took their later rounds in sweeps after the other pairs (`gpubench run` with more than one
round; docs/measurement.md, "Host-timed rounds in sweeps") measured round 1 of such a size right
after its verification and the later rounds at the end of the run.

For each run with a host-timed round at or above --slow (default 1.5) times its record's median,
prints the run's pieces from the first such piece to the last, with every host-timed variant's
ratio over the piece's rounds and the first variant's round ratios, so that one can tell an
episode a few pieces long (every round then slow, the pieces around it not) from a run slow from
start to end.

usage: host-episodes.py PROFILE.json... [--slow RATIO] [--swept]
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
    """[(pair, size text, [records])] in the profile's order (pair, size, variant)."""
    out = []
    for r in profile["records"]:
        key = (r["pair"], json.dumps(r["size"], sort_keys=True))
        if not out or out[-1][0:2] != key:
            out.append((key[0], key[1], []))
        out[-1][2].append(r)
    return out


def setup_s(recs):
    return max((r["timing"].get("setup_s", 0) for r in recs), default=0)


def round_wall_s(recs, k):
    return sum(r["timing"]["rounds"][k].get("wall_s", 0) for r in recs if k < len(r["timing"].get("rounds", [])))


def pieces(run, swept):
    """[(seconds it took, pair, size, records, first round, rounds)] in the order the run took them."""
    sizes = sizes_in_order(run)
    host = [any(r["timing"]["method"] == "host_wall" for r in recs) for _, _, recs in sizes]
    out = []
    for (pair, size, recs), is_host in zip(sizes, host):
        verify = sum(r["timing"].get("verify_s", 0) for r in recs)
        if swept and is_host:
            out.append((setup_s(recs) + verify + round_wall_s(recs, 0), pair, size, recs, 0, 1))
        else:
            rounds = max((len(r["timing"].get("rounds", [])) for r in recs), default=0)
            out.append((setup_s(recs) + verify + sum(r["timing"].get("wall_s", 0) for r in recs),
                        pair, size, recs, 0, rounds))
    if swept:
        k = 1
        while True:
            later = [(pair, size, recs) for (pair, size, recs), is_host in zip(sizes, host)
                     if is_host and any(k < len(r["timing"].get("rounds", [])) for r in recs)]
            if not later:
                break
            for pair, size, recs in later:
                out.append((setup_s(recs) + round_wall_s(recs, k), pair, size, recs, k, 1))
            k += 1
    return out


def piece_ratios(recs, first, count, center):
    """Each host-timed variant's median over its rounds [first, first + count), over its center."""
    out = []
    for r in recs:
        if not (timed(r) and r["id"] in center):
            continue
        m = round_medians(r)[first:first + count]
        if m:
            out.append(statistics.median(m) / center[r["id"]])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("profiles", nargs="+")
    ap.add_argument("--slow", type=float, default=1.5)
    ap.add_argument("--swept", action="store_true",
                    help="the runs took host-timed sizes' later rounds in sweeps after the other pairs")
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
        for took, pair, size, recs, first, count in pieces(run, a.swept):
            start = t
            t += took
            host = [r for r in recs if timed(r) and r["id"] in center]
            if not host:
                continue
            ratios = piece_ratios(host, first, count, center)
            rounds = [m / center[host[0]["id"]] for m in round_medians(host[0])[first:first + count]]
            label = f"{pair} {size}" + (f" round {first + 1}" if count == 1 and a.swept else "")
            rows.append((start, took, label, ratios, rounds))
        slow = [i for i, row in enumerate(rows) if row[3] and max(row[3]) >= a.slow]
        if not slow:
            continue
        print(f"\n{path}: slow from {rows[slow[0]][0]:.1f} s to {rows[slow[-1]][0] + rows[slow[-1]][1]:.1f} s "
              f"of {t:.1f} s")
        for start, took, label, ratios, rounds in rows[max(0, slow[0] - 1):slow[-1] + 2]:
            mark = "*" if ratios and max(ratios) >= a.slow else " "
            print(f" {mark} {start:6.2f} s +{took:5.2f}  {label}")
            print(f"      variants {' '.join(f'{x:.2f}' for x in ratios)}   "
                  f"first variant's rounds {' '.join(f'{x:.2f}' for x in rounds)}")

if __name__ == "__main__":
    main()
