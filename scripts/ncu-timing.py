#!/usr/bin/env python3
"""Timing agreement of a gpubench profile with Nsight Compute (scripts/ncu-crosscheck.sh --timing).

Usage: scripts/ncu-timing.py PROFILE.json NCU.csv
NCU.csv: `ncu --nvtx --csv --page raw --print-units base --metrics gpu__time_duration.sum` over
`gpubench run ... --profile`; each kernel row carries the NVTX range gpubench opens around the
variant (its record id). Kernels are summed per record and compared with the record's median
(samples_s: the event span less the empty span, cuda_events_net; or GPU busy time, --gpu-busy;
or the raw event span, profiles before the empty span was subtracted) and with its raw
event-span median. Aims: records >= 20 us within 2%, records < 20 us within 0.5 us. Each figure
is tallied over all records and over one-kernel records alone: ncu times each kernel of a chain
alone, after flushing the caches, so chains differ from a run for reasons of their own.
"""
import csv, json, re, statistics, sys

ID = re.compile(r"ch\d+/[A-Za-z0-9_]+/[A-Za-z0-9_]+\[[^\]]*\]")
# Records whose variants also copy or memset inside the timed region (ncu times kernels only):
# overlap_pipeline's copies, reduction's reset of its sum (cudaMemsetAsync), gemm_alignment's
# padded variant (cudaMemcpy2DAsync in and out of the padded buffers). By record-id prefix.
COPIES = ("ch04/overlap_pipeline/", "ch04/reduction/", "ch05/gemm_alignment/padded[")


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
    print("  gpubench: the record's figure (source); span: the raw CUDA-event span beside it, when kept")
    print(f"{'record':72} {'k':>3} {'ncu':>10} {'gpubench':>10} {'diff':>9} {'span':>10} {'diff':>9}  source")
    # Tallies per figure ("gpubench", "span") and per kind ("all", "single": one kernel per record).
    tally = {(f, k): {"big": [0, 0], "small": [0, 0], "big_ex": [], "small_ex": []}
             for f in ("gpubench", "span") for k in ("all", "single")}

    def count(figure, single, n_us, x_us):
        for kind in ("all", "single") if single else ("all",):
            t = tally[(figure, kind)]
            if n_us >= 20:
                d = (x_us - n_us) / n_us * 100
                t["big"][1] += 1
                t["big"][0] += abs(d) <= 2
                t["big_ex"].append(d)
            else:
                t["small"][1] += 1
                t["small"][0] += abs(x_us - n_us) <= 0.5
                t["small_ex"].append(x_us - n_us)

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
        source = t.get("source", t["method"])
        if source == "cuda_events":
            s_us = g_us  # the samples are the raw spans
        copies = rid.startswith(COPIES)
        single = kernels[rid] == 1
        d = (g_us - n_us) / n_us * 100
        if not copies:
            count("gpubench", single, n_us, g_us)
            if s_us is not None:
                count("span", single, n_us, s_us)
        sd = "" if s_us is None else f"{s_us:10.2f} {(s_us - n_us) / n_us * 100:+8.2f}%"
        note = "copies or memsets (ncu: kernels only)" if copies else ""
        flag = ""
        if not copies and ((n_us >= 20 and abs(d) > 2) or (n_us < 20 and abs(g_us - n_us) > 0.5)):
            flag = "!"
        print(f"{rid:72} {kernels[rid]:3} {n_us:10.2f} {g_us:10.2f} {d:+8.2f}%{flag:1} {sd:20}  {source} {note}")
    print()
    for figure in ("gpubench", "span"):
        for kind in ("all", "single"):
            t = tally[(figure, kind)]
            what = f"{figure:8} {'records' if kind == 'all' else 'one-kernel records'}"
            if t["big"][1]:
                print(f"{what} >= 20 us within 2% of ncu: {t['big'][0]} of {t['big'][1]}; "
                      f"median excess {statistics.median(t['big_ex']):+.2f}%")
            if t["small"][1]:
                print(f"{what} <  20 us within 0.5 us of ncu: {t['small'][0]} of {t['small'][1]}; "
                      f"median excess {statistics.median(t['small_ex']):+.2f} us")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1], sys.argv[2])
