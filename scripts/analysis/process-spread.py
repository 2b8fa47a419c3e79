#!/usr/bin/env python3
"""How much of a record's spread between processes its own rounds show.

usage: scripts/analysis/process-spread.py DIR [DIR...]
Each DIR holds profiles of identical code run in separate processes (any *.json; records are
matched by id). For every record seen in at least two processes of a DIR: the sd of its centers
between processes (a center is the mean of its round log medians), the sd of its round log
medians within a process (pooled), and the expected between-process sd if rounds were all there
is (within sd / sqrt(rounds)). The ratio of the two says how much placement, clocks or the host
move the record beyond what its rounds sample: about 1 when rounds redraw everything, far above 1
when each process keeps its own level (docs/measurement.md, "Rounds re-place memory").
Prints per DIR the median and 90th percentile of that ratio over its device-timed records, and
the records where it is largest. DEVICE_ONLY=0 includes host-timed records.
"""
import glob, json, math, os, statistics as st, sys


def round_logs(rec):
    t = rec["timing"]
    s, rounds = t["samples_s"], t.get("rounds") or []
    out, i = [], 0
    for r in rounds or [{"samples": len(s)}]:
        chunk = s[i:i + r["samples"]]
        i += r["samples"]
        if chunk:
            out.append(math.log(st.median(chunk)))
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        sys.exit(2)
    device_only = os.environ.get("DEVICE_ONLY", "1") != "0"
    for d in sys.argv[1:]:
        files = sorted(glob.glob(os.path.join(d, "*.json")))
        if not files:
            print(f"process-spread: no profiles in {d}", file=sys.stderr)
            sys.exit(2)
        by_id = {}
        for f in files:
            p = json.load(open(f))
            for r in p.get("records", []):
                if r.get("status") != "passed" or not r["timing"]["samples_s"]:
                    continue
                if device_only and r["timing"]["method"] == "host_wall":
                    continue
                by_id.setdefault(r["id"], []).append(round_logs(r))
        rows = []
        for rid, procs in by_id.items():
            if len(procs) < 2 or min(len(p) for p in procs) < 2:
                continue
            centers = [st.mean(p) for p in procs]
            dev = [x - st.mean(p) for p in procs for x in p]
            within_df = sum(len(p) - 1 for p in procs)
            within = math.sqrt(sum(x * x for x in dev) / within_df) if within_df else 0.0
            rbar = st.mean(len(p) for p in procs)
            expected = within / math.sqrt(rbar)
            between = st.stdev(centers)
            ratio = between / expected if expected > 0 else float("inf")
            rows.append((ratio, between, within, len(procs), rid))
        if not rows:
            print(f"{d}: no record in two processes with two rounds each")
            continue
        ratios = sorted(r[0] for r in rows)
        q90 = ratios[min(len(ratios) - 1, int(0.9 * len(ratios)))]
        print(f"{d}: {len(rows)} records; between-process sd / (within-round sd / sqrt(rounds)): "
              f"median {st.median(ratios):.2f}, 90th percentile {q90:.2f}")
        for ratio, between, within, n, rid in sorted(rows, reverse=True)[:8]:
            print(f"  {ratio:6.2f}  between {100 * between:5.2f}%  rounds {100 * within:5.2f}%  ({n} processes)  {rid}")


if __name__ == "__main__":
    main()
