#pragma once
// The schedule's executor on a GPU (gpubench/sampling.hpp): fresh states per round, the L2 flush,
// the timed sample (the CUDA-event span less the empty span measured before the round, or GPU
// busy time from CUPTI activity, each with the raw span beside it, or the host clock for
// host-driven pairs) and the SM clock after each sample.
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "device/nvml.hpp"
#include "gpubench/cuda.hpp"
#include "gpubench/registry.hpp"
#include "gpubench/sampling.hpp"
#include "measure/gpu_busy_timer.hpp"

namespace gpubench::detail {

/// What the runner owns for the whole run and lends to each size's executor.
struct device_tools {
  /// The stream samples run on, and the one the current state was built with: states may bind it
  /// (a cuBLAS handle), so the runner's later work on a state takes this one too.
  cudaStream_t stream = nullptr;
  /// Streams a fresh round may move to (cuda_executor::begin_round); empty or one: it stays.
  std::span<const cudaStream_t> round_streams;
  cudaEvent_t start = nullptr, stop = nullptr;
  /// The runner's flush buffer (>= 2x L2, read before each cold sample), which a fresh round with
  /// a stream pool moves along with its stream (cuda_executor::begin_round).
  device_buffer<unsigned char>* flush = nullptr;
  unsigned long long* flush_sink = nullptr;  ///< one device value the read flush may write
  nvml* nv = nullptr;                         ///< null or unavailable: the clock64 probe
  std::optional<nvml::device_handle> nv_device;
  unsigned long long* probe_device = nullptr;  ///< two values each
  unsigned long long* probe_host = nullptr;
  gpu_busy_timer* busy = nullptr;  ///< null or unavailable: CUDA events are the figure
  bool replace_memory = true;      ///< a spacer before each fresh state (cuda_executor::begin_round)
};

class cuda_executor final : public sample_executor {
 public:
  /// `state` is the size's verified state, or none; later rounds (and round 0 without one) replace
  /// it with fresh ones built from `ctx` (the same seed, so the same inputs in new buffers).
  cuda_executor(const pair_def& def, const size_point& z, setup_context ctx, std::unique_ptr<pair_state>& state,
                device_tools& tools);
  ~cuda_executor() override;

  void begin_round(int round) override;
  /// Builds round `round`'s fresh state now, ahead of its begin_round, which then only measures
  /// the round's empty span: `ab` has both builds' workers build theirs at the same time, so that
  /// the two rounds of a cycle follow each other with no set-up between them (coordinator.cpp,
  /// measure_ab_size). A failure leaves the round unprepared: its begin_round builds the state
  /// again and reports what fails.
  void prepare_round(int round);
  void warm_up(std::size_t variant, int runs) override;
  sample_reading sample(std::size_t variant) override;
  double now_s() override;
  /// Runs a rest kernel and waits for it, before the next sample's flush; nothing for a pair whose
  /// work crosses PCIe.
  void rest(double seconds) override;
  /// The empty event span measured for this round (cuda_events_net), else 0.
  [[nodiscard]] double round_offset_s() const override {
    return source_ == time_source::cuda_events_net ? offset_s_ : 0.0;
  }
  /// The spacer this round's fresh state was built behind (0: none).
  [[nodiscard]] std::uint64_t round_placement_bytes() const override { return placement_; }

  /// NVTX range names per variant (record ids); each timed sample is wrapped in its variant's.
  void name_samples(std::vector<std::string> names) { names_ = std::move(names); }
  /// What this pair's samples hold (gpu_busy when CUPTI activity works, else the method's own).
  [[nodiscard]] time_source source() const { return source_; }

 private:
  void flush_l2();
  void replace_flush_buffer();
  void build_fresh_state();
  double empty_span_s();
  void read_clock(sample_reading& r);

  const pair_def& def_;
  const size_point& z_;
  setup_context ctx_;
  std::unique_ptr<pair_state>& state_;
  device_tools& t_;
  time_source source_;
  double offset_s_ = 0;  ///< this round's empty event span (cuda_events_net)
  bool rests_ = true;    ///< false for pairs whose bytes cross PCIe (see the constructor)
  std::vector<std::string> names_;
  std::uint64_t placement_ = 0;
  int prepared_round_ = -1;  ///< the round whose state prepare_round built, -1: none
  /// Placement draws differ from process to process and round to round: what they sample is
  /// where the allocator puts memory, which no seed reproduces anyway.
  std::mt19937_64 placement_draws_{std::random_device{}()};
};

}  // namespace gpubench::detail
