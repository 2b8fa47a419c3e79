#pragma once
/// The speed at which the current CUDA context replays a graph of tiny kernels.
///
/// On H200 leases a process replays graphs of one-block kernels at one of two levels about 10%
/// apart. The level is drawn while the process sets up beside others (its context, its streams and
/// buffers) and holds from then on for every graph it replays, within about 1.6%
/// (scripts/analysis/graph-calibration-probe.cu, docs/results/h200.md). So a short replay timed
/// after the set-up, before any record, predicts where the process puts the graph launches of
/// every pair: `gpubench ab` takes it in each worker once it has planned a chapter, and compare
/// judges host-timed records at equal levels of it (docs/measurement.md, "The context's level").
namespace gpubench {

inline constexpr int kContextLevelKernels = 100;  ///< the calibration graph's kernels

/// Median host wall, in seconds, of replaying a captured graph of kContextLevelKernels one-block
/// kernels, launch to synchronize, on a stream of its own in the primary context of `device` (a few
/// milliseconds in all; the context is made if the process has none yet). Throws runtime_error on
/// a CUDA error.
double context_graph_level_s(int device);

}  // namespace gpubench
