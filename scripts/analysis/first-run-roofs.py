#!/usr/bin/env python3
"""Checks a first run's roofs: a profile made without `gpubench device --ceilings` (theoretical
ceilings only) judges every record against the roof of its own precision, and the console output
beside it fits its width (`scripts/gpu.sh roofs` writes both).

usage: scripts/analysis/first-run-roofs.py PROFILE WIDTH TEXT [TEXT...]
PROFILE: the run's profile (JSON); each TEXT: console output that must fit WIDTH columns.
Prints the compute peaks, then per record with FLOPs: its precision, achieved FLOP/s, the roof
that bounds it and the fraction of that roof (marked when above 100%). Exit 0 when
  - the ceilings are theoretical and hold a peak for each precision a record declares,
  - every record's floor is bound by its own precision or by its bytes' path (never by another
    precision's roof: a bf16 GEMM judged against FP32 is the failure this checks for),
  - every line of every TEXT has at most WIDTH code points;
exit 1 otherwise, naming each failure.
"""
import json
import sys

PEAK_FIELD = {
    "fp32": "fp32_flops_per_s", "fp64": "fp64_flops_per_s", "tf32": "tf32_flops_per_s",
    "fp16": "fp16_flops_per_s", "bf16": "bf16_flops_per_s", "fp8": "fp8_flops_per_s",
    "int8": "int8_ops_per_s", "fp64_tensor": "fp64_tensor_flops_per_s",
}


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    profile_path, width, texts = argv[1], int(argv[2]), argv[3:]
    with open(profile_path, encoding="utf-8") as f:
        p = json.load(f)
    failures = []
    c = p["ceilings"]
    print(f"ceilings: {c.get('source')}")
    if c.get("source") != "theoretical":
        failures.append(f"ceilings are {c.get('source')!r}, not theoretical: the ceilings cache was not empty")
    for kind, field in PEAK_FIELD.items():
        print(f"  {kind:<12} {c.get(field, 0) / 1e12:10.1f} T/s")
    print()
    print(f"{'record':<56} {'kind':<6} {'achieved':>10} {'bound':<6} {'of roof':>8}")
    for r in p["records"]:
        w, fl = r.get("work", {}), r.get("floor")
        if w.get("flops", 0) <= 0 or not fl or r.get("status") != "passed":
            continue
        kind = w.get("flops_kind", "fp32")
        if c.get(PEAK_FIELD.get(kind, ""), 0) <= 0:
            failures.append(f"{r['id']}: no {kind} peak in the ceilings")
        median = r["summary"]["median"]
        achieved = w["flops"] / median if median > 0 else 0
        mark = " ▲" if fl["fraction"] > 1 else ""
        print(f"{r['id']:<56} {kind:<6} {achieved / 1e12:7.1f} TF/s {fl['bound']:<6} {fl['fraction'] * 100:7.1f}%{mark}")
        if fl["bound"] not in (kind, w.get("path", "dram")):
            failures.append(f"{r['id']}: a {kind} record bound by {fl['bound']}, not by its own roof")
    for path in texts:
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if len(line) > width:
                    failures.append(f"{path}:{n}: {len(line)} columns > {width}: {line[:60]}…")
    print()
    for f in failures:
        print(f"FAIL {f}")
    print("OK: every record is judged against its own precision's roof; every line fits"
          if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
