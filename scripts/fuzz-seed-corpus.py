#!/usr/bin/env python3
"""Seeds the profile reader's fuzz corpus (tests/fuzz/corpus) from the reference profiles.

usage: scripts/fuzz-seed-corpus.py [profiles/reference/*.json]
  -- writes tests/fuzz/corpus/seed-<name>.json

Each seed is a reference profile cut to its two records with the fewest samples (every field of
those records kept, summary included, so the seed still loads; a speedup whose baseline was cut
away is null, as the reader recomputes it), written compactly: libFuzzer's
inputs stay a few kilobytes, while provenance, options, ceilings and metrics cover what real runs
write. docs/profile-schema.md, "Fuzzing the reader", has the fuzz command.
"""
import glob
import json
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
paths = sys.argv[1:] or sorted(glob.glob(os.path.join(root, "profiles", "reference", "*.json")))
out_dir = os.path.join(root, "tests", "fuzz", "corpus")
for path in paths:
    with open(path) as f:
        profile = json.load(f)
    records = sorted(profile["records"], key=lambda r: len(r["timing"]["samples_s"]))[:2]
    # A size's first record is its baseline, and the reader recomputes every speedup against it: a
    # kept variant whose baseline was cut away has none.
    def size_of(r):
        return (r["chapter"], r["pair"], json.dumps(r["size"], sort_keys=True))
    baselines = {}
    for r in profile["records"]:
        baselines.setdefault(size_of(r), r)
    profile["records"] = [r for r in profile["records"] if any(r is k for k in records)]  # keep file order
    for r in profile["records"]:
        if not any(baselines[size_of(r)] is k for k in profile["records"]):
            r["speedup_vs_baseline"] = None
    name = "seed-" + os.path.basename(path)
    with open(os.path.join(out_dir, name), "w") as f:
        json.dump(profile, f, separators=(",", ":"))
        f.write("\n")
    print(f"{name}: {len(profile['records'])} records")
