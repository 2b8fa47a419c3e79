"""Shared by the `ab` analysis scripts: cutting rounds out of one `gpubench ab` session's profiles
so that gpubench's reader still accepts them, and judging the cut pair with `gpubench compare`.

gpubench recomputes every derived field on reading (lib/src/profile), so a cut profile must carry
what its kept samples give: the summary as lib/src/stats/stats.cpp computes it, throughput and the
floor's fraction scaled with the median, and each variant's speedup as the baseline's median over
its own.
"""
import json
import math
import os
import statistics
import subprocess
import sys

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


def session_arguments(argv, usage):
    """(gpubench, base profile, new profile, the remaining arguments) from a script's
    `GPUBENCH BASE.json NEW.json X [X...]`; exits 2, the usage or the reason printed, on bad ones."""
    if len(argv) < 5:
        print(usage.strip(), file=sys.stderr)
        sys.exit(2)
    session = read_session(argv[2], argv[3])
    if session is None:
        sys.exit(2)
    return argv[1], session[0], session[1], argv[4:]


def read_session(base_path, new_path):
    """One `ab` session's two profiles, or None (the reason printed) where the base is not an
    `ab` profile."""
    with open(base_path, encoding="utf-8") as f:
        base = json.load(f)
    with open(new_path, encoding="utf-8") as f:
        new = json.load(f)
    if not base["options"].get("ab_workers_per_build"):
        print(f"{base_path}: not an `ab` profile (no options.ab_workers_per_build)", file=sys.stderr)
        return None
    return base, new


def size_key(record):
    """A record's pair and size, the same in both builds' profiles."""
    return record["pair"], json.dumps(record["size"], sort_keys=True)


def rounds_of(record):
    """(round's entry, its samples) for each round of an `ab` record, in order."""
    t = record["timing"]
    out, pos = [], 0
    for r in t.get("rounds") or []:
        out.append((r, t["samples_s"][pos:pos + r["samples"]]))
        pos += r["samples"]
    return out


def keep_rounds(profile, keep):
    """A copy of `profile` with only the rounds for which keep(record, round) is true, and the
    derived fields recomputed from the samples those rounds kept."""
    p = json.loads(json.dumps(profile))
    for r in p["records"]:
        t = r["timing"]
        rounds = t.get("rounds") or []
        if not rounds:
            continue
        n = len(t["samples_s"])
        per_sample = [key for key, v in t.items() if key != "rounds" and isinstance(v, list) and len(v) == n]
        kept, kept_rounds, pos = [], [], 0
        for ri in rounds:
            if keep(r, ri):
                kept_rounds.append(ri)
                kept.extend(range(pos, pos + ri["samples"]))
            pos += ri["samples"]
        t["rounds"] = kept_rounds
        for key in per_sample:
            t[key] = [t[key][i] for i in kept]
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
    baseline = {size_key(r): r["summary"]["median"]
                for r in p["records"] if r["variant"] == "baseline" and r.get("summary")}
    for r in p["records"]:
        b = baseline.get(size_key(r))
        if r.get("speedup_vs_baseline") and b and r.get("summary"):
            r["speedup_vs_baseline"] = b / r["summary"]["median"]
    return p


def judge(gpubench, base, new, folder, name):
    """`gpubench compare BASE NEW --threshold 2 --json` on two profiles (dicts) written to
    `folder`: the comparison's JSON, or (None, compare's exit code and stderr) when it refused."""
    b, n, s = (os.path.join(folder, f"{name}.{part}.json") for part in ("base", "new", "comparison"))
    for path, prof in ((b, base), (n, new)):
        with open(path, "w", encoding="utf-8") as f:
            json.dump(prof, f)
    done = subprocess.run([gpubench, "compare", b, n, "--threshold", "2", "--json", s],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    if not os.path.exists(s):
        return None, f"gpubench compare exited {done.returncode}: {done.stderr.strip()}"
    with open(s, encoding="utf-8") as f:
        return json.load(f), None


def resolving(comparison):
    """(records resolving 10%, resolving 5%, records, median degrees of freedom) of a comparison."""
    recs = comparison["records"]
    res = [r["resolvable_pct"] for r in recs if r["resolvable_pct"] is not None]
    dfs = [r["degrees_of_freedom"] for r in recs if r["degrees_of_freedom"] is not None]
    return (sum(x <= 10 for x in res), sum(x <= 5 for x in res), len(recs),
            statistics.median(dfs) if dfs else float("nan"))
