#!/usr/bin/env bash
# Fuzzes the profile reader for SECONDS (default 60) with libFuzzer, ASan and UBSan
# (tests/fuzz/profile_reader_fuzz.cpp; docs/profile-schema.md, "Fuzzing the reader").
# Builds the CPU core with Clang in build-fuzz/ (no CUDA), starts from tests/fuzz/corpus, and
# keeps what it finds in a scratch directory, so the committed corpus is never modified.
# Exits non-zero on a crash, leaving crash-<sha1> in the current directory.
#   usage: scripts/fuzz.sh [SECONDS]        (needs clang and its compiler-rt: scripts/setup-deps.sh --fuzz)
set -euo pipefail
seconds=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD:-$root/build-fuzz}
command -v clang++ >/dev/null || { echo "fuzz: clang++ not found; run scripts/setup-deps.sh --fuzz" >&2; exit 2; }
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DGPUBENCH_FUZZ=ON -DGPUBENCH_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target gpubench_fuzz_profile
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$build/gpubench_fuzz_profile" -max_total_time="$seconds" -print_final_stats=1 "$scratch" "$root/tests/fuzz/corpus"
