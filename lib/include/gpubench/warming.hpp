#pragma once
/// Which variants a build's other worker processes run once, side by side, before their first
/// round of a size (runner::cheap_to_warm, `warm` in gpubench/worker_protocol.hpp), judged on how
/// the verifying worker's run of each spent its time (docs/measurement.md, "Warming the other
/// workers"). CUDA-free.
#include "gpubench/work.hpp"

namespace gpubench {

/// How one untimed run of a variant spent its time: on the host until its `run` returned (a
/// library's first call at a size spends tens of milliseconds there choosing and loading its
/// kernels), then waiting for the GPU.
struct run_split {
  double host_s = 0;
  double gpu_wait_s = 0;
};

/// The longest run worth warming, and the wait for the GPU that is cheap whatever the host time.
inline constexpr double kWarmLongestS = 0.25;
inline constexpr double kWarmGpuWaitS = 1e-3;

/// Whether the other workers of a build should run a variant once before their first round: what
/// its run spent on the host every worker spends at the same time as the others, while what it kept
/// the GPU busy they spend one after another. So: a run of at most kWarmLongestS whose wait for the
/// GPU was at most kWarmGpuWaitS or a quarter of its host time, and no bytes over a host or peer
/// link (copies there share the link rather than the host's cores).
bool worth_warming(const run_split& s, bytes_path path);

}  // namespace gpubench
