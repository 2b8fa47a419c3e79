#!/usr/bin/env bash
# Fuzzes every reader of untrusted input for SECONDS (default 60) with libFuzzer, ASan and UBSan
# (tests/fuzz/readers_fuzz.cpp; docs/testing.md, "Fuzzing the readers"). Builds the CPU core with
# Clang in build-fuzz/ (no CUDA), starts from tests/fuzz/corpus and the hostile-input cases
# (tests/hostile/cases), and keeps what it finds in a scratch directory, so the committed corpora
# are never modified.
# Exits non-zero on a crash, leaving crash-<sha1> in the current directory.
#   usage: scripts/fuzz.sh [SECONDS]        (needs clang and its compiler-rt: scripts/setup-deps.sh --fuzz)
set -euo pipefail
seconds=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD:-$root/build-fuzz}
command -v clang++ >/dev/null || { echo "fuzz: clang++ not found; run scripts/setup-deps.sh --fuzz" >&2; exit 2; }
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DGPUBENCH_FUZZ=ON -DGPUBENCH_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target gpubench_fuzz_readers
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$build/gpubench_fuzz_readers" -max_total_time="$seconds" -print_final_stats=1 "$scratch" "$root/tests/fuzz/corpus" \
  "$root/tests/hostile/cases"
