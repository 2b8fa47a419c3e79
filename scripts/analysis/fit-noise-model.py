#!/usr/bin/env python3
"""Fits compare's between-process noise model (lib/src/compare/noise_model.cpp) on runs of
identical code in separate processes (`scripts/gpu.sh processes`).

usage: scripts/analysis/fit-noise-model.py RUNS [RUNS...]
Each RUNS is a folder or .tar.gz of chNN-rK.json (what `scripts/gpu.sh processes` writes).
EXCLUDE=SUBSTRING leaves out the records whose id contains it (a record a set changed on purpose,
such as the sensitivity runs' patched float4 copy, when the rest of the set is identical code).
For every record seen in at least two processes of one RUNS set: its center per process (mean
of the log round medians), the within-run variance of that center (the between-round spread / R,
at least the samples' own median noise), and the between-process variance of the centers. The
excess of the latter over the former is what one run cannot see. Per class of record (device-timed,
host-timed, device-timed with bytes crossing between GPUs: "peer", and device-timed with bytes
crossing PCIe: "pcie"), for round factors
k = 1..4, prints the floor that covers 95% of the records' excess sd beyond k x their
between-round sd, then the 20 records that move most. Process: docs/measurement.md, "The process floors".

It also prints the gate floor: the smallest floor (with the class's round factor: 0 for device-timed records, 1 for the others) with which `gpubench compare`
of every ordered pair of runs of one chapter in one RUNS set gives no *slower* and no *faster*
verdict on any record, with compare's own formula (Bonferroni z over the records compared, the
default 5% threshold, device-timed rounds paired by position). compare gates CI on every record at once, so a floor that covers 95% of
records still raises false alarms; the committed floor covers the gate floor of every set.
For device-timed records it also prints the gate absolute floor: beyond the committed relative
floor (FLOOR_DEVICE, 0.8%), the smallest floor in seconds over the record's time that leaves no
false verdict (compare's floor_device_abs_s: a few-microsecond record moves by event ticks).
"""
import collections, glob, io, json, math, os, statistics as st, sys, tarfile


def profiles(path):
    exclude = os.environ.get("EXCLUDE")

    def kept(p):
        if exclude:
            p["records"] = [r for r in p["records"] if exclude not in r["id"]]
        return p

    if os.path.isdir(path):
        for f in sorted(glob.glob(os.path.join(path, "**", "ch*-r*.json"), recursive=True)):
            yield f, kept(json.load(open(f)))
    else:
        with tarfile.open(path) as t:
            for m in sorted(t.getmembers(), key=lambda m: m.name):
                if m.isfile() and os.path.basename(m.name).startswith("ch") and m.name.endswith(".json"):
                    yield m.name, kept(json.load(io.TextIOWrapper(t.extractfile(m))))


def noise(s):
    if len(s) < 3:
        return float("inf")
    med = st.median(s)
    mad = st.median([abs(x - med) for x in s])
    sigma = 1.4826 * mad if mad > 0 else st.stdev(s)
    return math.sqrt(math.pi / 2) * sigma / math.sqrt(len(s)) / med


def side(rec):
    t = rec["timing"]
    s, rounds = t["samples_s"], t.get("rounds") or []
    logs, i = [], 0
    if rounds and sum(r["samples"] for r in rounds) == len(s):
        for r in rounds:
            logs.append(math.log(st.median(s[i:i + r["samples"]])))
            i += r["samples"]
    else:
        logs = [math.log(st.median(s))]
    rsd = st.stdev(logs) if len(logs) > 1 else 0.0
    n = noise(s)
    var = max(rsd * rsd / len(logs) if len(logs) > 1 else 0.0, n * n if math.isfinite(n) else 0.0)
    # The classes compare's model keeps apart: host-timed, device-timed with bytes crossing
    # between GPUs (chapter 8) or over PCIe (overlap_pipeline), and the other device-timed records.
    peer = rec.get("work", {}).get("path", "").startswith("peer")
    pcie = rec.get("work", {}).get("path", "").startswith("pcie")
    src = "host" if t["method"] == "host_wall" else "peer" if peer else "pcie" if pcie else "device"
    return sum(logs) / len(logs), var, rsd, src, logs, n * n if math.isfinite(n) else 0.0


FLOOR_DEVICE = 0.008  # lib/src/compare/noise_model.cpp
# compare's round factor per class (lib/src/compare/noise_model.cpp): device-timed rounds are fresh
# draws of what moves a record between processes, so the device class has none; ROUND_FACTOR_DEVICE=1
# gives a device class that scales with its between-round spread, as the others do.
ROUND_FACTOR = {"device": float(os.environ.get("ROUND_FACTOR_DEVICE", "0")), "host": 1.0, "peer": 1.0, "pcie": 1.0}


def gate_floors(path, alpha=0.05, threshold=0.05):
    """Per class of record, the smallest floor (with the class's round factor) giving no slower/faster
    verdict in any ordered pair of runs of one chapter in `path`, and the record that needs it."""
    runs = collections.defaultdict(list)
    for name, p in profiles(path):
        runs[os.path.basename(name).split("-r")[0]].append(p)
    need = {"device": (0.0, ""), "host": (0.0, ""), "peer": (0.0, ""), "pcie": (0.0, ""), "device_abs_s": (0.0, "")}
    thr = math.log1p(threshold)
    for chapter_runs in runs.values():
        sides = [{r["id"]: side(r) for r in p["records"] if r["status"] == "passed" and r["timing"]["samples_s"]}
                 for p in chapter_runs]
        for a in sides:
            for b in sides:
                if a is b:
                    continue
                ids = [i for i in a if i in b]
                z = st.NormalDist().inv_cdf(1 - alpha / max(1, len(ids)) / 2)
                for i in ids:
                    (ca, va, ra, src, la, na), (cb, vb, rb, _, lb, nb) = a[i], b[i]
                    gap = abs(cb - ca) - thr
                    k = ROUND_FACTOR[src]
                    if src != "host" and len(la) == len(lb) >= 2:
                        # compare pairs device-timed rounds by position (noise_model.hpp, paired_round_sd)
                        dsd = st.stdev([y - x for x, y in zip(la, lb)])
                        within = max(dsd * dsd / len(la), na + nb)
                        sd = lambda f, w=within, r=k * dsd / math.sqrt(2): math.sqrt(w + 2 * max(f, r) ** 2)
                    else:
                        sd = lambda f, va=va, vb=vb, ra=k * ra, rb=k * rb: math.sqrt(va + vb + max(f, ra) ** 2 + max(f, rb) ** 2)
                    if z * sd(0.0) >= gap:
                        continue
                    lo, hi = 0.0, 10.0
                    for _ in range(100):
                        mid = (lo + hi) / 2
                        lo, hi = (mid, hi) if z * sd(mid) < gap else (lo, mid)
                    if hi > need[src][0]:
                        need[src] = (hi, i)
                    seconds = hi * math.exp((ca + cb) / 2)  # the floor as an absolute one, at this record's time
                    if src == "device" and hi > FLOOR_DEVICE and seconds > need["device_abs_s"][0]:
                        need["device_abs_s"] = (seconds, i)
    return need


def main(paths):
    points = []  # (excess sd, mean round sd, source, id, between sd)
    for path in paths:
        by = collections.defaultdict(list)
        for _, p in profiles(path):
            for r in p["records"]:
                if r["status"] == "passed" and r["timing"]["samples_s"]:
                    by[r["id"]].append(side(r))
        for rid, sides in by.items():
            if len(sides) < 2:
                continue
            between = st.variance([x[0] for x in sides])
            within = st.mean([x[1] for x in sides])
            rsd = st.mean([x[2] for x in sides])
            points.append((math.sqrt(max(0.0, between - within)), rsd, sides[0][3], rid, math.sqrt(between)))
    for src in ("device", "host", "peer", "pcie"):
        pts = [p for p in points if p[2] == src]
        if not pts:
            continue
        ex = sorted(100 * p[0] for p in pts)
        print(f"{src}: {len(pts)} records; excess between-process sd (%) at 50/90/95/100%: "
              + " / ".join(f"{ex[int(q * (len(ex) - 1))]:.3f}" for q in (0.5, 0.9, 0.95, 1.0)))
        for k in (1, 2, 3, 4):
            resid = sorted(max(0.0, e - k * r) for e, r, *_ in pts)
            floor = resid[int(0.95 * (len(resid) - 1))]
            print(f"  round factor {k}: floor {100 * floor:.3f}% (95% of records' excess within max(floor, {k} x round sd))")
    for path in paths:
        for src, (f, rid) in gate_floors(path).items():
            if rid and src == "device_abs_s":
                print(f"gate absolute floor above {100 * FLOOR_DEVICE:.1f}%, device, {os.path.basename(path)}: "
                      f"{1e9 * f:.0f} ns ({rid})")
            elif rid:
                print(f"gate floor, {src}, {os.path.basename(path)}: {100 * f:.2f}% ({rid})")
    print("\nrecords that move most between processes (sd %):")
    for e, r, src, rid, b in sorted(points, reverse=True)[:20]:
        print(f"  {rid:78} {src:6} between {100 * b:6.2f}  beyond the run {100 * e:6.2f}  round sd {100 * r:6.2f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1:])
