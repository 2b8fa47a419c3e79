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

The cut profiles must pass gpubench's reader, which recomputes every derived field: the summary is
recomputed from the kept samples as lib/src/stats/stats.cpp does, throughput and the floor's
fraction scale with the median, and each variant's speedup is the baseline's median over its own.
Exit 0; 1 when compare refuses a cut profile (its message is printed); 2 on bad arguments.
"""
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

MAD_TO_SIGMA = 1.4826  # gpubench/stats.hpp, kMadToSigma


def quantile(s, p):
    """Hyndman & Fan type 7 over sorted s, as quantile_sorted in lib/src/stats/stats.cpp."""
    h = (len(s) - 1) * p
    lo = math.floor(h)
    return s[-1] if lo + 1 >= len(s) else s[lo] + (h - lo) * (s[lo + 1] - s[lo])


def summarize(data):
    s = sorted(data)
    n = len(s)
    mean = sum(s) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1)) if n > 1 else 0.0
    med = quantile(s, 0.5)
    mad = statistics.median([abs(x - med) for x in s])
    sigma = MAD_TO_SIGMA * mad if mad > 0 else sd
    rel = math.sqrt(math.pi / 2) * sigma / math.sqrt(n) / abs(med) if n >= 3 and med != 0 else None
    return {"count": n, "min": s[0], "max": s[-1], "mean": mean, "stdev": sd, "median": med,
            "q1": quantile(s, 0.25), "q3": quantile(s, 0.75), "p95": quantile(s, 0.95),
            "p99": quantile(s, 0.99), "mad": mad, "rel_noise": rel}


def cut(profile, k):
    """The profile with only the rounds of workers 0..k-1 (their samples and per-sample arrays)."""
    p = json.loads(json.dumps(profile))
    for r in p["records"]:
        t = r["timing"]
        rounds = t.get("rounds") or []
        if not rounds:
            continue
        n = len(t["samples_s"])
        per_sample = [key for key, v in t.items() if key != "rounds" and isinstance(v, list) and len(v) == n]
        keep, kept_rounds, pos = [], [], 0
        for ri in rounds:
            if ri.get("process", 0) < k:
                kept_rounds.append(ri)
                keep.extend(range(pos, pos + ri["samples"]))
            pos += ri["samples"]
        t["rounds"] = kept_rounds
        for key in per_sample:
            t[key] = [t[key][i] for i in keep]
        if r.get("summary"):
            old = r["summary"]["median"]
            r["summary"] = summarize(t["samples_s"])
            f = old / r["summary"]["median"]
            tp = r.get("throughput") or {}
            for key in ("bytes_per_s", "flops_per_s"):
                if tp.get(key):
                    tp[key] *= f
            if tp.get("s_per_item"):
                tp["s_per_item"] /= f
            if (r.get("floor") or {}).get("fraction"):
                r["floor"]["fraction"] *= f
    baseline = {(r["pair"], json.dumps(r["size"], sort_keys=True)): r["summary"]["median"]
                for r in p["records"] if r["variant"] == "baseline" and r.get("summary")}
    for r in p["records"]:
        b = baseline.get((r["pair"], json.dumps(r["size"], sort_keys=True)))
        if r.get("speedup_vs_baseline") and b and r.get("summary"):
            r["speedup_vs_baseline"] = b / r["summary"]["median"]
    p["options"]["ab_workers_per_build"] = k
    return p


def main(argv):
    if len(argv) < 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    gpubench, base_path, new_path = argv[1:4]
    with open(base_path, encoding="utf-8") as f:
        base = json.load(f)
    with open(new_path, encoding="utf-8") as f:
        new = json.load(f)
    workers = base["options"].get("ab_workers_per_build")
    if not workers:
        print(f"{base_path}: not an `ab` profile (no options.ab_workers_per_build)", file=sys.stderr)
        return 2
    ks = [int(k) for k in argv[4:]]
    if any(k < 2 or k > workers for k in ks):
        print(f"each K must be 2..{workers}, the session's workers a build", file=sys.stderr)
        return 2
    print(f"{'pairs':>5}  {'resolving 10%':>13}  {'resolving 5%':>12}  {'df (median)':>11}  {'cycle spread':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for k in ks:
            b, n, s = (os.path.join(tmp, f"{name}{k}.json") for name in ("base", "new", "comparison"))
            for path, prof in ((b, base), (n, new)):
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(cut(prof, k), f)
            done = subprocess.run([gpubench, "compare", b, n, "--threshold", "2", "--json", s],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
            if not os.path.exists(s):  # compare refused the cut profiles: say why
                print(f"K={k}: gpubench compare exited {done.returncode}: {done.stderr.strip()}", file=sys.stderr)
                return 1
            with open(s, encoding="utf-8") as f:
                c = json.load(f)
            recs = c["records"]
            res = [r["resolvable_pct"] for r in recs if r["resolvable_pct"] is not None]
            dfs = [r["degrees_of_freedom"] for r in recs if r["degrees_of_freedom"] is not None]
            print(f"{k:>5}  {sum(x <= 10 for x in res):>6} of {len(recs):<4}  {sum(x <= 5 for x in res):>5} of "
                  f"{len(recs):<4}  {statistics.median(dfs):>11.1f}  {c['cycle_spread_pct']:>11.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
