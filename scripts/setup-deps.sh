#!/usr/bin/env bash
# Installs what gpubench needs to build and test on Debian/Ubuntu, skipping what is already there.
# usage: scripts/setup-deps.sh [--fuzz]
# The CUDA Toolkit itself is not installed here (it is large and versioned by the user): we check
# for it and say how to get it.
set -euo pipefail

packages=(cmake ninja-build g++ make git libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev libgmock-dev
          libbenchmark-dev gnuplot-nox)
# --fuzz: also Clang and its compiler-rt (libFuzzer, sanitizers) for scripts/fuzz.sh / `make fuzz`.
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang libclang-rt-dev)
  shift
fi
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
