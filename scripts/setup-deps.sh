#!/usr/bin/env bash
# Installs what gpubench needs to build and test on Debian/Ubuntu, skipping what is already there.
# usage: scripts/setup-deps.sh [--fuzz] [--nccl]
# The CUDA Toolkit itself is not installed here (it is large and versioned by the user): we check
# for it and say how to get it.
set -euo pipefail

packages=(cmake ninja-build g++ make git libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev libgmock-dev
          libbenchmark-dev gnuplot-nox)
nccl=0
for arg in "$@"; do
  case "$arg" in
    # --fuzz: also Clang and its compiler-rt (libFuzzer, sanitizers) for scripts/fuzz.sh / `make fuzz`.
    --fuzz) packages+=(clang libclang-rt-dev) ;;
    # --nccl: NCCL for chapter 8's all-reduce pairs, from PyPI's nvidia-nccl-cu13 wheel (~345 MB
    # unpacked; 22 s to install on a 2-core VM), into the git-ignored .deps/python where
    # cmake/FindNCCL.cmake looks. Opt-in: without NCCL everything else builds, and `gpubench list`
    # says how to get the two pairs it leaves out.
    --nccl) nccl=1 ;;
    *) echo "setup-deps: unknown option $arg (expected --fuzz or --nccl)" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup-deps: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup-deps: system packages present"
fi

nvcc=${CUDACXX:-}
[ -n "$nvcc" ] || nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; }
if [ -z "$nvcc" ]; then
  echo "setup-deps: no CUDA Toolkit found (nvcc). Install the CUDA Toolkit (tested with 13.0; see https://developer.nvidia.com/cuda-downloads)" >&2
  echo "            into /usr/local/cuda, or point CUDACXX at its nvcc." >&2
  exit 1
fi
echo "setup-deps: CUDA Toolkit: $("$nvcc" --version | tail -1)"

if [ "$nccl" = 1 ]; then
  repo=$(cd "$(dirname "$0")/.." && pwd)
  if [ -f "$repo/.deps/python/nvidia/nccl/include/nccl.h" ]; then
    echo "setup-deps: NCCL present in .deps/python"
  else
    command -v python3 >/dev/null || { echo "setup-deps: --nccl needs python3 with pip (the wheel comes from PyPI)" >&2; exit 1; }
    echo "setup-deps: installing nvidia-nccl-cu13 into .deps/python"
    # --target: no root, no PEP 668 clash with a system Python, nothing outside the repository.
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target "$repo/.deps/python" nvidia-nccl-cu13
  fi
  echo "setup-deps: NCCL $(grep -E '^#define NCCL_(MAJOR|MINOR|PATCH) ' "$repo/.deps/python/nvidia/nccl/include/nccl.h" | awk '{print $3}' | paste -sd.) (configure again to pick it up)"
fi
