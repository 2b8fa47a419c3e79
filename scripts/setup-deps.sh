#!/usr/bin/env bash
# Installs what gpubench needs to build and test on Debian/Ubuntu, skipping what is already there.
# usage: scripts/setup-deps.sh [--fuzz] [--nccl] [--fleet] | --browser
# The CUDA Toolkit itself is not installed here (it is large and versioned by the user): we check
# for it and say how to get it.
#
# The browser test of `gpubench report` (tests/browser/, ctest label `browser`) needs Chromium and
# python3. On Debian they come with the rest: measured on a 2-core Debian 12 VM, `apt-get install
# --no-install-recommends chromium` took 12 s (122 MB downloaded, 414 MB installed), little beside a
# CI job of ~12 minutes. On Ubuntu the `chromium` package only installs a snap, which containers and
# CI images often cannot run, so it is left out there and the test reports Skipped with the reason.
# Chromium is installed on its own, best effort: if it fails, everything else still works.
set -euo pipefail

# libsqlitecpp-dev, libpqxx-dev, libssl-dev: the run store (SQLite, PostgreSQL, SHA-256; docs/store.md).
# libxml2-utils: xmllint, the strict XML parser the hostile-input tests hold every XML and SVG output to.
packages=(cmake ninja-build g++ make git libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev libgmock-dev
          libbenchmark-dev gnuplot-nox clang-format libsqlitecpp-dev libpqxx-dev libssl-dev pkg-config libxml2-utils)
browser_only=0
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
    # --fleet: a real Slurm (slurmctld, slurmd, munge) for the fleet tests and Open MPI for
    # `gpubench collective` and its tests (docs/fleet.md); .ci/run starts the Slurm in a temporary
    # folder (tests/slurm/slurm-up.sh). Without them those tests report Skipped or are not built.
    --fleet) packages+=(slurmctld slurmd slurm-client munge libopenmpi-dev openmpi-bin python3) ;;
    # --browser: only what the browser test needs (`make test-browser`).
    --browser) browser_only=1; packages=(gnuplot-nox) ;;
    *) echo "setup-deps: unknown option $arg (expected --fuzz, --nccl, --fleet or --browser)" >&2; exit 2 ;;
  esac
done

os_id=""
[ -r /etc/os-release ] && os_id=$(. /etc/os-release && echo "${ID:-}")
browser=()
if [ "$os_id" = "debian" ]; then
  browser=(chromium python3)
elif ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 && ! command -v google-chrome >/dev/null 2>&1; then
  echo "setup-deps: note: the report's browser test needs Chromium, which is installed here only on Debian; on" \
       "${os_id:-this system} install it yourself (Ubuntu: snap install chromium), or the test reports Skipped"
fi

missing_of() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
mapfile -t missing < <(missing_of "${packages[@]}")
mapfile -t missing_browser < <(missing_of "${browser[@]}")

sudo=""
if ((${#missing[@]} + ${#missing_browser[@]})) && [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then
    sudo="sudo"
  elif ((${#missing[@]})); then
    echo "setup-deps: need root or sudo to install: ${missing[*]} ${missing_browser[*]}" >&2
    exit 1
  else  # only the browser test's packages: it reports Skipped without them
    echo "setup-deps: note: no root or sudo to install ${missing_browser[*]}; the browser test will report Skipped" >&2
    missing_browser=()
  fi
fi
export DEBIAN_FRONTEND=noninteractive
updated=0
if ((${#missing[@]})); then
  echo "setup-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  updated=1
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup-deps: system packages present"
fi
if ((${#missing_browser[@]})); then
  echo "setup-deps: installing ${missing_browser[*]} for the report's browser test"
  { ((updated)) || $sudo apt-get update -qq; } &&
    $sudo apt-get install -y -qq --no-install-recommends "${missing_browser[@]}" >/dev/null ||
    echo "setup-deps: warning: could not install ${missing_browser[*]}; the browser test will report Skipped" >&2
fi
((browser_only)) && exit 0

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
