#!/usr/bin/env python3
"""Run-to-run spread of medians across several gpubench profiles of the same selection.

usage: scripts/analysis/median-spread.py RUN1.json RUN2.json [...]
Prints, per record, each run's median and the spread (max-min)/min, flagging records >= 50 us
whose spread exceeds 2%.
"""
import json
import sys

if len(sys.argv) < 3:
    print(__doc__, file=sys.stderr)
    sys.exit(2)
runs = [json.load(open(p)) for p in sys.argv[1:]]
ids = [r["id"] for r in runs[0]["records"] if r.get("summary")]
worst = 0.0
for rid in ids:
    meds = []
    for run in runs:
        rec = next((r for r in run["records"] if r["id"] == rid), None)
        if rec and rec.get("summary"):
            meds.append(rec["summary"]["median"])
    if len(meds) < 2:
        continue
    spread = (max(meds) - min(meds)) / min(meds)
    big = min(meds) >= 50e-6
    if big:
        worst = max(worst, spread)
    flag = "  <-- over 2%" if big and spread > 0.02 else ""
    print(f"{rid:66s} " + " ".join(f"{m * 1e6:11.2f}" for m in meds) + f"  {spread * 100:6.2f}%{flag}")
print(f"worst spread over records >= 50 us: {worst * 100:.2f}%")
