# Front door. `make test` and `make run` set everything up on a fresh Debian/Ubuntu machine that
# has the CUDA Toolkit; see README.md. Variables: BUILD (build dir), GPUBENCH_CUDA_ARCHS (e.g. 90),
# RUN_ARGS (extra arguments for `make run`), PREFIX (for `make install`), FUZZ_SECONDS (for `make fuzz`),
# CMAKE_ARGS (extra configure options, e.g. -DCMAKE_DISABLE_FIND_PACKAGE_NCCL=ON or -DNCCL_ROOT=DIR).
BUILD ?= build
GPUBENCH_CUDA_ARCHS ?= 80;89;90
PREFIX ?= /usr/local
RUN_ARGS ?=
CMAKE_ARGS ?=
NVCC := $(or $(CUDACXX),$(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))

.PHONY: all setup configure build test test-gpu test-browser fuzz run install clean

all: build

setup:
	@scripts/setup-deps.sh

configure: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER=$(NVCC) \
	  "-DGPUBENCH_CUDA_ARCHS=$(GPUBENCH_CUDA_ARCHS)" $(CMAKE_ARGS) >/dev/null

build: configure
	@cmake --build $(BUILD)

# Every test; GPU tests report "Skipped" (exit 77) on a machine without a CUDA device.
test: build
	@ctest --test-dir $(BUILD) --output-on-failure

test-gpu: build
	@ctest --test-dir $(BUILD) --output-on-failure -L gpu

# Only the HTML report in headless Chromium (docs/testing.md, "The browser test"), with its output,
# so a skip shows its reason. `make test` runs it too wherever Chromium is installed (setup-deps
# installs it on Debian).
test-browser: build
	@ctest --test-dir $(BUILD) -L browser -V

# Fuzzes every reader of untrusted input for FUZZ_SECONDS with Clang's libFuzzer in build-fuzz/ (no CUDA).
FUZZ_SECONDS ?= 60
fuzz:
	@scripts/setup-deps.sh --fuzz
	@scripts/fuzz.sh $(FUZZ_SECONDS)

# Runs chapter 1. Without a GPU it says so, shows what works offline, and exits non-zero.
run: build
	@if $(BUILD)/gpubench device >/dev/null 2>&1; then \
	  $(BUILD)/gpubench run --chapter 1 $(RUN_ARGS); \
	else \
	  $(BUILD)/gpubench device; \
	  echo; echo "What works without a GPU -- the pairs chapter 1 would run:"; echo; \
	  $(BUILD)/gpubench list --chapter 1; \
	  exit 1; \
	fi

install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	@rm -rf $(BUILD)
