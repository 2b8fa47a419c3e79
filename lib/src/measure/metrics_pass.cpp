// run --metrics: one collection per verified variant, after the size's timing is complete, so the
// counters never disturb a timed sample. Failures become the record's metrics.reason.
#include "measure/metrics_pass.hpp"

#include <algorithm>

#include <cuda_runtime_api.h>

#include "gpubench/cuda.hpp"
#include "gpubench/cupti.hpp"
#include "measure/device_kernels.hpp"

namespace gpubench::detail {

metrics_pass::metrics_pass(int device, std::vector<std::string> metrics, bool per_kernel)
    : metrics_(std::move(metrics)), per_kernel_(per_kernel), profiler_(std::make_unique<range_profiler>(device)) {
  try {
    sink_ = std::make_unique<device_buffer<unsigned long long>>(1);
  } catch (const std::exception&) {
    cudaGetLastError();  // 8 bytes: fails only on a broken context, and collection then reports its own error
  }
}

metrics_pass::~metrics_pass() = default;

const std::string& metrics_pass::unavailable() const { return profiler_->reason(); }

void metrics_pass::collect(const variant_def& v, pair_state& state, record& r, stream_t stream,
                           const void* flush_buffer, std::size_t flush_bytes) {
  // Cold, like ncu's default --cache-control all: before every pass, inside the profiling session
  // but outside the range, the L2 is refilled with clean lines of the flush buffer, so the
  // variant's inputs come from DRAM and no dirty line of earlier work (or of starting the session)
  // is written back (and counted) inside the range.
  // The CUPTI range is named like the record, '/' spelled ':' so no tool reads it as nesting.
  std::string name = r.id();
  std::replace(name.begin(), name.end(), '/', ':');
  // read_flush launches one kernel where the buffer holds a 16-byte load, which per-kernel mode leaves out.
  const std::size_t flush_kernels = sink_ && flush_bytes >= sizeof(uint4) ? 1 : 0;
  const profiled_work work{name,
                           [&] {
                             if (sink_) detail::read_flush(flush_buffer, flush_bytes, sink_->get(), stream);
                             GPUBENCH_CUDA(cudaStreamSynchronize(stream));
                           },
                           [&] {
                             v.run(state, stream);
                             GPUBENCH_CUDA(cudaGetLastError());
                             GPUBENCH_CUDA(cudaStreamSynchronize(stream));
                           },
                           flush_kernels};
  metric_result m = profiler_->collect(metrics_, work, range_mode::whole);
  if (per_kernel_ && m.status == metrics_status::collected) {
    metric_result k = profiler_->collect(metrics_, work, range_mode::per_kernel);
    if (k.status == metrics_status::collected) m.kernels = std::move(k.kernels);
    else m.reason += (m.reason.empty() ? "" : "; ") + std::string("per-kernel breakdown: ") + k.reason;
    m.collection_s += k.collection_s;
  }
  cudaGetLastError();  // a failed replay must not poison the next variant
  for (const auto& c : cross_check(r.declared, m.derived))
    if (c.contradicts) m.warnings.push_back(c.message);
  r.metrics = std::move(m);
}

}  // namespace gpubench::detail
