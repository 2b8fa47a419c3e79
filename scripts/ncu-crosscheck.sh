#!/usr/bin/env bash
# Cross-checks `gpubench run --metrics` against Nsight Compute on the same pairs: DRAM bytes,
# FLOPs (ncu's roofline counting: add + mul + 2*fma, plus tensor-path ops) and GPU duration, per
# variant. ncu reports per kernel; its rows are summed per variant by the NVTX range gpubench puts
# around each variant in --profile mode (the record id, chNN/pair/variant[size]).
# Targets: bytes and FLOPs within 1%, durations within 5%. gpubench's whole-variant duration is its
# user range (launch gaps included), so the duration column uses the sum over its kernels from
# --metrics-per-kernel (on by default here), like ncu's sum; the range duration is printed too.
#
# Usage, from the repo root on the GPU machine (python3 and ncu on PATH):
#   scripts/ncu-crosscheck.sh --chapter 1 [--pair batched_gemm] [--axis m=8192] ...
#   scripts/ncu-crosscheck.sh --timing --chapter 2 [...]
# --timing compares timings instead: a default `gpubench run` against ncu's gpu__time_duration
# summed per record over `run --profile`, for every device-timed record, and counts the records
# within the aims (>= 20 us: within 2%; < 20 us: within 0.5 us). ncu times kernels only: a record
# whose variant also copies or memsets in its timed region is marked "copies or memsets" and left
# out of the tallies (scripts/ncu-timing.py, COPIES).
# --timing runs ncu with --cache-control none (NCU_CACHE=all for ncu's default, a flush before
# every kernel): --profile reads the L2 out before each cold variant as a timed sample does, so
# each kernel of a chain starts from what its predecessor left in L2, as in a run. With all, ncu
# writes a chain's dirty intermediates back between its kernels, outside their durations.
# Environment: GB (gpubench binary, default ./build-gpu/gpubench or ./build/gpubench),
#   METRICS (the --metrics value for gpubench, default roofline), OUT (folder, default ncu-crosscheck),
#   PER_KERNEL (1: also --metrics-per-kernel, the default; 0: not).
set -uo pipefail
[ $# -gt 0 ] || { sed -n '2,24p' "$0"; exit 2; }
timing=0
if [ "$1" = --timing ]; then timing=1; shift; fi
gb=${GB:-$( [ -x ./build-gpu/gpubench ] && echo ./build-gpu/gpubench || echo ./build/gpubench )}
out=${OUT:-ncu-crosscheck}
metrics=${METRICS:-roofline}
mkdir -p "$out"
command -v ncu >/dev/null || { echo "ncu not found on PATH"; exit 1; }

if [ $timing = 1 ]; then
  echo "== gpubench run $* (default options)"
  "$gb" run "$@" --out "$out/timing.json" >"$out/timing.txt" 2>&1; echo "rc=$? (console: $out/timing.txt)"
  echo "== ncu --clock-control none --cache-control ${NCU_CACHE:-none} --nvtx --metrics gpu__time_duration.sum over run --profile"
  ncu --clock-control none --cache-control "${NCU_CACHE:-none}" --nvtx --csv --page raw --print-units base --metrics gpu__time_duration.sum \
    "$gb" run "$@" --profile --out "$out/profile-mode.json" >"$out/ncu-timing.csv" 2>"$out/ncu-timing.err"
  echo "ncu rc=$? ($(wc -l <"$out/ncu-timing.csv") lines)"
  exec python3 "$(dirname "$0")/ncu-timing.py" "$out/timing.json" "$out/ncu-timing.csv"
fi

ncu_metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
for op in fadd fmul ffma dadd dmul dfma hadd hmul hfma; do
  ncu_metrics+=",sm__sass_thread_inst_executed_op_${op}_pred_on.sum"
done
# Tensor paths are named per chip family; ncu rejects a name the chip lacks, so ask gpubench (the
# CUPTI host API) which of ours exist here.
tensor=$("$gb" metrics --json 2>/dev/null | python3 -c '
import json, sys
try:
    doc = json.load(sys.stdin)
except Exception:
    sys.exit(0)
names = [m["name"] for s in doc["sets"] if s["name"] == "roofline" for m in s["metrics"]
         if "ops_path_tensor" in m["name"] and m.get("available")]
print(",".join(names))')
[ -n "$tensor" ] && ncu_metrics+=",$tensor"

echo "== gpubench run --metrics=$metrics $*"
per_kernel=$( [ "${PER_KERNEL:-1}" = 1 ] && echo --metrics-per-kernel )
"$gb" run "$@" --metrics="$metrics" $per_kernel --quick --out "$out/gpubench.json" >"$out/gpubench.txt" 2>&1
rc=$?; echo "rc=$rc (console: $out/gpubench.txt)"; grep -E "metrics:|Counters: not" "$out/gpubench.txt" | head -3

echo "== ncu --clock-control none --nvtx --csv --page raw --print-units base (each variant once: run --profile)"
ncu --clock-control none --nvtx --csv --page raw --print-units base --metrics "$ncu_metrics" \
  "$gb" run "$@" --profile --out "$out/profile-mode.json" >"$out/ncu.csv" 2>"$out/ncu.err"
echo "ncu rc=$? ($(wc -l <"$out/ncu.csv") lines; stderr: $out/ncu.err)"

python3 - "$out/gpubench.json" "$out/ncu.csv" <<'PY'
import csv, json, re, sys

profile_path, csv_path = sys.argv[1], sys.argv[2]
ID = re.compile(r"ch\d+/[A-Za-z0-9_]+/[A-Za-z0-9_]+\[[^\]]*\]")
OPS = {"fp32": ("fadd", "fmul", "ffma"), "fp64": ("dadd", "dmul", "dfma"), "fp16": ("hadd", "hmul", "hfma")}

def sass(op):
    return f"sm__sass_thread_inst_executed_op_{op}_pred_on.sum"

def flops(v):
    """FLOPs from a dict of metric values, counted like ncu's roofline; None if nothing known."""
    total, known = 0.0, False
    for add, mul, fma in OPS.values():
        if all(sass(o) in v for o in (add, mul, fma)):
            total += v[sass(add)] + v[sass(mul)] + 2 * v[sass(fma)]
            known = True
    tensor = [k for k in v if "ops_path_tensor" in k]
    # GH100's combined fp16 counter and other chips' split ones never coexist in one chip's list.
    for k in tensor:
        total += v[k]
        known = True
    return total if known else None

def number(text):
    text = text.strip().replace(",", "")
    try:
        return float(text)
    except ValueError:
        return None

# ncu: sum the kernels of each NVTX range (the record id appears in one of the NVTX columns).
ncu, kernels = {}, {}
with open(csv_path, newline="") as f:
    lines = [l for l in f if l.startswith('"')]  # drop ==PROF== lines and gpubench's console
rows = list(csv.reader(lines))
if not rows:
    sys.exit("no CSV rows from ncu: see ncu.err")
header = rows[0]
metric_cols = {name: i for i, name in enumerate(header) if "__" in name}
for row in rows[1:]:
    ids = {m for cell in row for m in ID.findall(cell)}
    if len(ids) != 1:
        continue  # setup kernels (outside every range) or the units row
    rid = ids.pop()
    vals = {name: number(row[i]) for name, i in metric_cols.items() if i < len(row)}
    if vals.get("dram__bytes_read.sum") is None:
        continue
    acc = ncu.setdefault(rid, {})
    for k, x in vals.items():
        if x is not None:
            acc[k] = acc.get(k, 0.0) + x
    kernels[rid] = kernels.get(rid, 0) + 1

with open(profile_path) as f:
    prof = json.load(f)

def pct(a, b):
    if a is None or b is None:
        return None
    if b == 0:
        return 0.0 if a == 0 else float("inf")
    return (a - b) / b * 100

def fmt(x):
    return "-" if x is None else f"{x:.4g}"

def mark(d, limit):
    if d is None:
        return "   -   "
    flag = " " if abs(d) <= limit else "!"
    return f"{d:+6.2f}%{flag}"

print()
print(f"{'record':60} {'k':>3}  {'DRAM B gpubench':>15} {'ncu':>11} {'diff':>8}  "
      f"{'FLOP gpubench':>13} {'ncu':>11} {'diff':>8}  {'kernel ns gpub.':>13} {'ncu':>11} {'diff':>8}")
worst = {"bytes": 0.0, "flops": 0.0, "time": 0.0}
for r in prof["records"]:
    m = r.get("metrics")
    if not m:
        continue
    rid = r["id"]
    if m["status"] != "collected":
        print(f"{rid:60} metrics not collected: {m['reason']}")
        continue
    v = m["values"]
    n = ncu.get(rid)
    gb_bytes = (v.get("dram__bytes_read.sum", 0) + v.get("dram__bytes_write.sum", 0)) if "dram__bytes_read.sum" in v else None
    gb_flops = flops(v)
    gb_range_time = v.get("gpu__time_duration.sum")
    ks = m.get("kernels") or []
    gb_time = sum(k["values"].get("gpu__time_duration.sum", 0) for k in ks) if ks else gb_range_time
    if n is None:
        print(f"{rid:60} no ncu kernels in this NVTX range")
        continue
    nb = n.get("dram__bytes_read.sum", 0) + n.get("dram__bytes_write.sum", 0)
    nf = flops(n)
    nt = n.get("gpu__time_duration.sum")
    db, df, dt = pct(gb_bytes, nb), pct(gb_flops, nf), pct(gb_time, nt)
    for key, d in (("bytes", db), ("flops", df), ("time", dt)):
        if d is not None and d != float("inf"):
            worst[key] = max(worst[key], abs(d))
    print(f"{rid:60} {kernels[rid]:3}  {fmt(gb_bytes):>15} {fmt(nb):>11} {mark(db, 1)}  "
          f"{fmt(gb_flops):>13} {fmt(nf):>11} {mark(df, 1)}  {fmt(gb_time):>13} {fmt(nt):>11} {mark(dt, 5)}"
          f"  range {fmt(gb_range_time)} ns, {len(ks)} kernel range(s)")
print()
print(f"worst |diff|: DRAM bytes {worst['bytes']:.2f}% (target 1%), FLOPs {worst['flops']:.2f}% (target 1%), "
      f"duration {worst['time']:.2f}% (target 5%; '!' marks a miss; k = kernels ncu saw in the range)")
for r in prof["records"]:
    m = r.get("metrics") or {}
    if m.get("collection_s") is not None:
        print(f"collection {m['collection_s']:.3f} s, {m.get('passes', 0)} passes: {r['id']}")
PY
