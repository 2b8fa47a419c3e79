#!/usr/bin/env python3
"""Timing agreement of a gpubench profile with Nsight Compute (scripts/ncu-crosscheck.sh --timing).

Usage: ncu_timing.py PROFILE.json NCU.csv
NCU.csv: `ncu --nvtx --csv --page raw --print-units base --metrics gpu__time_duration.sum` over
`gpubench run ... --profile`; each kernel row carries the NVTX range gpubench opens around the
variant (its record id). Kernels are summed per record and compared with the record's median
(samples_s: GPU busy time, or the event span when that was unavailable) and its event-span median.
Aims: records >= 20 us within 2%, records < 20 us within 0.5 us.
"""
import csv, json, re, statistics, sys

ID = re.compile(r"ch\d+/[A-Za-z0-9_]+/[A-Za-z0-9_]+\[[^\]]*\]")
COPIES = {"ch04/overlap_pipeline"}  # variants that move data with copy engines (ncu sees kernels only)


def main(profile_path, csv_path):
    ncu, kernels = {}, {}
    with open(csv_path, newline="") as f:
        rows = list(csv.reader(l for l in f if l.startswith('"')))
    if not rows:
        sys.exit("no CSV rows from ncu")
    col = rows[0].index("gpu__time_duration.sum")
    for row in rows[1:]:
        ids = {m for cell in row for m in ID.findall(cell)}
        if len(ids) != 1:
            continue
        try:
            ns = float(row[col].replace(",", ""))
        except (ValueError, IndexError):
            continue
        rid = ids.pop()
        ncu[rid] = ncu.get(rid, 0.0) + ns
        kernels[rid] = kernels.get(rid, 0) + 1
    prof = json.load(open(profile_path))
    gpu = prof["provenance"]["device"]["name"]
    print(f"\n{gpu}: gpubench median vs ncu's summed gpu__time_duration (us)")
    print(f"{'record':72} {'k':>3} {'ncu':>10} {'gpubench':>10} {'diff':>9} {'span':>10} {'diff':>9}  source")
    big = [0, 0]
    small = [0, 0]
    big_excess, small_excess = [], []
    for r in prof["records"]:
        t = r["timing"]
        if t["method"] != "cuda_events" or r["status"] != "passed" or not t["samples_s"]:
            continue
        rid = r["id"]
        if rid not in ncu:
            print(f"{rid:72} no ncu kernels in its NVTX range")
            continue
        n_us = ncu[rid] / 1e3
        g_us = statistics.median(t["samples_s"]) * 1e6
        spans = t.get("span_s") or []
        s_us = statistics.median(spans) * 1e6 if spans else None
        copies = any(rid.startswith(p + "/") for p in COPIES)
        d = (g_us - n_us) / n_us * 100
        if not copies:
            if n_us >= 20:
                big[1] += 1
                big[0] += abs(d) <= 2
                big_excess.append(d)
            else:
                small[1] += 1
                small[0] += abs(g_us - n_us) <= 0.5
                small_excess.append(g_us - n_us)
        sd = "" if s_us is None else f"{s_us:10.2f} {(s_us - n_us) / n_us * 100:+8.2f}%"
        note = "copies (ncu: kernels only)" if copies else ""
        flag = ""
        if not copies and ((n_us >= 20 and abs(d) > 2) or (n_us < 20 and abs(g_us - n_us) > 0.5)):
            flag = "!"
        print(f"{rid:72} {kernels[rid]:3} {n_us:10.2f} {g_us:10.2f} {d:+8.2f}%{flag:1} {sd:20}  {t.get('source', t['method'])} {note}")
    print()
    if big[1]:
        print(f"records >= 20 us within 2% of ncu: {big[0]} of {big[1]}; median excess {statistics.median(big_excess):+.2f}%")
    if small[1]:
        print(f"records <  20 us within 0.5 us of ncu: {small[0]} of {small[1]}; median excess {statistics.median(small_excess):+.2f} us")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
