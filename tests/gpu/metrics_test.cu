// GPU tests of the CUPTI wrapper on kernels whose counts are known exactly or nearly:
// a float copy of N bytes must read and write N bytes of DRAM (±2%), an FFMA/DFMA chain must
// report its exact FLOP count, a range of three launches must sum them, per-kernel mode must
// split them, and `run --metrics` must fill the records and flag a lying work model. Every test
// prints what it measured. Skipped (not failed) when counters are not permitted or a profiler
// holds them; the reason is printed. Run alone: gpubench_gpu_tests --gtest_filter='gpu_metrics*'
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpubench/cuda.hpp"
#include "gpubench/cupti.hpp"
#include "gpubench/device_query.hpp"
#include "gpubench/metrics.hpp"
#include "gpubench/registry.hpp"
#include "gpubench/runner.hpp"

namespace gpubench {
namespace {

constexpr const char* kRead = "dram__bytes_read.sum";
constexpr const char* kWrite = "dram__bytes_write.sum";
constexpr const char* kDuration = "gpu__time_duration.sum";
constexpr const char* kFadd = "sm__sass_thread_inst_executed_op_fadd_pred_on.sum";
constexpr const char* kFmul = "sm__sass_thread_inst_executed_op_fmul_pred_on.sum";
constexpr const char* kFfma = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum";
constexpr const char* kDfma = "sm__sass_thread_inst_executed_op_dfma_pred_on.sum";
constexpr const char* kDadd = "sm__sass_thread_inst_executed_op_dadd_pred_on.sum";
constexpr const char* kDmul = "sm__sass_thread_inst_executed_op_dmul_pred_on.sum";

__global__ void copy_floats(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

// A dependent chain: exactly `iters` FFMA per thread, nothing the compiler can fold or merge.
__global__ void ffma_chain(float* data, float a, float b, int iters) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  float x = data[i];
  for (int k = 0; k < iters; ++k) x = fmaf(x, a, b);
  data[i] = x;
}

__global__ void dfma_chain(double* data, double a, double b, int iters) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  double x = data[i];
  for (int k = 0; k < iters; ++k) x = fma(x, a, b);
  data[i] = x;
}

// Reads a buffer of >= 2x L2 so the L2 holds only its clean lines: the next range starts cold and
// no dirty line of earlier work is written back inside it.
__global__ void read_all(const uint4* in, std::size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
  {
    const uint4 v = in[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u && threadIdx.x == 1023) *sink = acc;
}

// Spins one thread for `ns` nanoseconds of the GPU's global timer, touching no memory.
__global__ void spin(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); while (t - t0 < ns);
}

struct fixture {
  cuda_stream stream;
  device_buffer<uint4> flush;
  device_buffer<unsigned> sink{1};
  fixture() : flush(std::max<std::size_t>(2 * query_device(0).l2_bytes, 64u << 20) / sizeof(uint4)) {}
  void cold() {
    read_all<<<1024, 256, 0, stream.get()>>>(flush.get(), flush.size(), sink.get());
    GPUBENCH_CHECK_LAUNCH();
    GPUBENCH_CUDA(cudaStreamSynchronize(stream.get()));
  }
};

/// The profiler, once per process; null (with the reason printed) when counters cannot be read.
range_profiler* profiler() {
  static range_profiler* p = [] {
    GPUBENCH_CUDA(cudaSetDevice(0));
    GPUBENCH_CUDA(cudaFree(nullptr));
    auto* rp = new range_profiler(0);
    std::printf("[metrics] chip %s; %s\n", rp->chip().c_str(),
                rp->available() ? "Range Profiler available" : ("NOT available: " + rp->reason()).c_str());
    return rp;
  }();
  return p->available() ? p : nullptr;
}

#define REQUIRE_PROFILER()                                                               \
  range_profiler* prof = profiler();                                                     \
  if (prof == nullptr) GTEST_SKIP() << "CUPTI Range Profiler not available here (see the [metrics] line)"

double value(const metric_result& m, const char* name) {
  const auto it = m.values.find(name);
  return it == m.values.end() ? -1.0 : it->second;
}

void print(const char* test, const metric_result& m) {
  std::printf("[metrics] %s: status %s, %d pass(es), %.3f s%s%s\n", test, to_string(m.status), m.passes, m.collection_s,
              m.reason.empty() ? "" : ", note: ", m.reason.c_str());
  for (const auto& [k, v] : m.values) std::printf("[metrics]   %-55s %.6e\n", k.c_str(), v);
  for (const auto& [k, v] : m.derived) std::printf("[metrics]   derived %-47s %.6e\n", k.c_str(), v);
  for (std::size_t i = 0; i < m.kernels.size(); ++i) {
    std::printf("[metrics]   kernel range %zu (%s):", i, m.kernels[i].name.c_str());
    for (const auto& [k, v] : m.kernels[i].values) std::printf(" %s=%.6e", k.c_str(), v);
    std::printf("\n");
  }
  std::fflush(stdout);
}

TEST(gpu_metrics, copy_of_n_bytes_reads_and_writes_n_bytes_of_dram) {
  REQUIRE_PROFILER();
  fixture f;
  // 4 GiB each way: at most one L2 (50 MB on H100) of the output can still be dirty in L2 when the
  // range ends, which is < 2% of N (writes counted are those that reached DRAM in the range).
  const std::size_t n = std::size_t(1) << 30;  // floats
  const double bytes = double(n) * sizeof(float);
  device_buffer<float> in(n), out(n);
  fill_uniform(in.get(), n, 42, -1.f, 1.f, f.stream.get());
  GPUBENCH_CUDA(cudaStreamSynchronize(f.stream.get()));
  const profiled_work work{"copy", [&] { f.cold(); },
                           [&] {
                             copy_floats<<<4 * 132 * 8, 256, 0, f.stream.get()>>>(in.get(), out.get(), n);
                             GPUBENCH_CHECK_LAUNCH();
                             GPUBENCH_CUDA(cudaStreamSynchronize(f.stream.get()));
                           },
                           1};
  const metric_result m = prof->collect({kRead, kWrite, kDuration, kFadd, kFmul, kFfma}, work);
  print("copy 4 GiB", m);
  ASSERT_EQ(m.status, metrics_status::collected) << m.reason;
  std::printf("[metrics]   copy: N = %.6e B; read/N = %.5f, write/N = %.5f\n", bytes, value(m, kRead) / bytes,
              value(m, kWrite) / bytes);
  EXPECT_NEAR(value(m, kRead) / bytes, 1.0, 0.02);
  EXPECT_NEAR(value(m, kWrite) / bytes, 1.0, 0.02);
  EXPECT_GT(value(m, kDuration), 0);
  EXPECT_EQ(value(m, kFfma), 0);  // a copy does no arithmetic
  EXPECT_NEAR(m.derived.at("dram_bytes"), 2 * bytes, 0.02 * 2 * bytes);
  EXPECT_GE(m.passes, 1);
}

// What a CUPTI range counts of its own: with no memory traffic in it (empty, and one thread spinning
// 10 µs to 1 ms), next to no DRAM writes. On an NVIDIA H100 80GB HBM3: 1.8 KB, 15 KB, 32 KB and
// 46 KB, against a 50 MiB L2; on another H100 the 1 ms spin counted 284 KB (0.54%), so the bound
// is 1% of the L2.
// And the flush is clean as the counters see it: a read-only kernel right after it (4 MiB, and
// 1 GiB, which evicts the whole L2) writes back at most 1% of the L2. With the flush run before
// the profiling session started, the same kernels counted ~2.3 MB and ~25 MB (docs/counters.md,
// "The flush runs inside the session").
TEST(gpu_metrics, a_range_without_writes_counts_almost_no_dram_writes) {
  REQUIRE_PROFILER();
  fixture f;
  const double l2 = double(query_device(0).l2_bytes);
  const auto measure = [&](const char* name, const std::function<void()>& body) {
    const profiled_work work{name, [&] { f.cold(); },
                             [&] {
                               body();
                               GPUBENCH_CHECK_LAUNCH();
                               GPUBENCH_CUDA(cudaStreamSynchronize(f.stream.get()));
                             },
                             1};
    const metric_result m = prof->collect({kWrite, kRead, kDuration}, work);
    print(name, m);
    EXPECT_EQ(m.status, metrics_status::collected) << name << ": " << m.reason;
    std::printf("[metrics]   %s: written %.0f B = %.4f%% of L2, read %.0f B, range %.1f us\n", name, value(m, kWrite),
                100 * value(m, kWrite) / l2, value(m, kRead), value(m, kDuration) / 1e3);
    return value(m, kWrite);
  };
  EXPECT_LE(measure("empty range", [] {}), 0.01 * l2);
  for (const unsigned long long us : {10ull, 100ull, 1000ull}) {
    const std::string name = "spin " + std::to_string(us) + " us";
    EXPECT_LE(measure(name.c_str(), [&] { spin<<<1, 1, 0, f.stream.get()>>>(us * 1000); }), 0.01 * l2) << name;
  }
  for (const std::size_t mib : {std::size_t(4), std::size_t(1024)}) {
    device_buffer<uint4> data((mib << 20) / sizeof(uint4));
    GPUBENCH_CUDA(cudaMemset(data.get(), 1, data.bytes()));  // dirty lines the flush must clean
    const std::string name = "read-only kernel, " + std::to_string(mib) + " MiB";
    const auto read = [&] { read_all<<<1024, 256, 0, f.stream.get()>>>(data.get(), data.size(), f.sink.get()); };
    EXPECT_LE(measure(name.c_str(), read), 0.01 * l2) << name;
  }
}

TEST(gpu_metrics, ffma_and_dfma_chains_report_their_exact_flop_count) {
  REQUIRE_PROFILER();
  fixture f;
  const unsigned blocks = 1024, threads = 256;
  const int iters = 1000;
  const double thread_count = double(blocks) * threads;
  device_buffer<float> xf(blocks * threads);
  device_buffer<double> xd(blocks * threads);
  GPUBENCH_CUDA(cudaMemsetAsync(xf.get(), 0, xf.bytes(), f.stream.get()));
  GPUBENCH_CUDA(cudaMemsetAsync(xd.get(), 0, xd.bytes(), f.stream.get()));
  const profiled_work work{"fma chains", [&] { f.cold(); },
                           [&] {
                             ffma_chain<<<blocks, threads, 0, f.stream.get()>>>(xf.get(), 0.999f, 0.5f, iters);
                             dfma_chain<<<blocks, threads, 0, f.stream.get()>>>(xd.get(), 0.999, 0.5, iters);
                             GPUBENCH_CHECK_LAUNCH();
                             GPUBENCH_CUDA(cudaStreamSynchronize(f.stream.get()));
                           },
                           1};
  const metric_result m = prof->collect({kFadd, kFmul, kFfma, kDadd, kDmul, kDfma, kDuration}, work);
  print("ffma+dfma chains", m);
  ASSERT_EQ(m.status, metrics_status::collected) << m.reason;
  EXPECT_EQ(value(m, kFfma), thread_count * iters);
  EXPECT_EQ(value(m, kFadd), 0);
  EXPECT_EQ(value(m, kFmul), 0);
  EXPECT_EQ(value(m, kDfma), thread_count * iters);
  EXPECT_EQ(m.derived.at("flops_fp32"), 2 * thread_count * iters);
  EXPECT_EQ(m.derived.at("flops_fp64"), 2 * thread_count * iters);
  EXPECT_GT(m.derived.at("duration_s"), 0);
}

TEST(gpu_metrics, a_range_of_three_launches_sums_them_and_per_kernel_mode_splits_them) {
  REQUIRE_PROFILER();
  fixture f;
  const unsigned blocks = 264, threads = 128;
  const int iters = 500;
  const double one = double(blocks) * threads * iters;  // FFMA per launch
  device_buffer<float> x(blocks * threads);
  GPUBENCH_CUDA(cudaMemsetAsync(x.get(), 0, x.bytes(), f.stream.get()));
  const profiled_work work{"three launches", [&] { f.cold(); },
                           [&] {
                             for (int k = 0; k < 3; ++k)
                               ffma_chain<<<blocks, threads, 0, f.stream.get()>>>(x.get(), 1.0001f, -0.5f, iters);
                             GPUBENCH_CHECK_LAUNCH();
                             GPUBENCH_CUDA(cudaStreamSynchronize(f.stream.get()));
                           },
                           1};
  const std::vector<std::string> metrics{kFfma, kDuration, "lts__t_sector_hit_rate.pct"};
  const metric_result whole = prof->collect(metrics, work, range_mode::whole);
  print("3 launches, one range", whole);
  ASSERT_EQ(whole.status, metrics_status::collected) << whole.reason;
  EXPECT_EQ(value(whole, kFfma), 3 * one);
  EXPECT_TRUE(whole.kernels.empty());

  const metric_result split = prof->collect(metrics, work, range_mode::per_kernel);
  print("3 launches, per kernel", split);
  ASSERT_EQ(split.status, metrics_status::collected) << split.reason;
  ASSERT_EQ(split.kernels.size(), 3u);
  for (const auto& k : split.kernels) EXPECT_EQ(k.values.at(kFfma), one) << k.name;
  // The flush that prepare launched inside the session is no range of the work's: CUPTI numbers
  // auto ranges by position, and the work's kernels count from 0.
  EXPECT_EQ(split.kernels.front().name, "0");
  EXPECT_EQ(split.kernels.back().name, "2");
  EXPECT_EQ(value(split, kFfma), 3 * one);  // counters summed over kernels
  EXPECT_GT(value(split, kDuration), 0);
  EXPECT_EQ(split.values.count("lts__t_sector_hit_rate.pct"), 0u) << "a ratio must not be summed over kernels";
}

TEST(gpu_metrics, unknown_metric_is_named_and_the_rest_is_collected) {
  REQUIRE_PROFILER();
  fixture f;
  device_buffer<float> x(1 << 16);
  const profiled_work work{"one kernel", [&] { f.cold(); },
                           [&] {
                             ffma_chain<<<256, 256, 0, f.stream.get()>>>(x.get(), 1.f, 0.f, 10);
                             GPUBENCH_CHECK_LAUNCH();
                             GPUBENCH_CUDA(cudaStreamSynchronize(f.stream.get()));
                           },
                           1};
  const metric_result m = prof->collect({kFfma, "dram__bytes_red.sum", "sm__ops_path_tensor_src_fp16_dst_fp32.sum"}, work);
  print("unknown metric", m);
  ASSERT_EQ(m.status, metrics_status::collected) << m.reason;
  EXPECT_EQ(value(m, kFfma), 256.0 * 256 * 10);
  EXPECT_NE(m.reason.find("dram__bytes_red.sum"), std::string::npos) << m.reason;
  EXPECT_EQ(m.missing.size(), prof->chip() == "GH100" ? 2u : 1u);  // the split tensor name is not Hopper's

  const metric_result none = prof->collect({"dram__bytes_red.sum"}, work);
  EXPECT_EQ(none.status, metrics_status::unavailable);
  EXPECT_NE(none.reason.find("dram__bytes_red.sum"), std::string::npos) << none.reason;
}

TEST(gpu_metrics, run_metrics_fills_records_and_flags_a_lying_work_model) {
  if (profiler() == nullptr) GTEST_SKIP() << "CUPTI Range Profiler not available here";
  // The self-test pair of gpu_pairs_test.cu declares 1000x the bytes its copy moves.
  run_options o = run_options::quick();
  o.metrics = resolve_metrics("roofline");
  runner r(0, o);
  EXPECT_EQ(r.metrics_unavailable(), "");
  run_observer quiet;
  const auto rs = r.run(registry::global().select(99, {"selftest"}), quiet);
  int collected = 0;
  for (const auto& rec : rs) {
    if (rec.status != record_status::passed) {
      EXPECT_FALSE(rec.metrics.has_value()) << rec.id() << ": only timed variants get counters";
      continue;
    }
    ASSERT_TRUE(rec.metrics.has_value()) << rec.id();
    print(rec.id().c_str(), *rec.metrics);
    ASSERT_EQ(rec.metrics->status, metrics_status::collected) << rec.metrics->reason;
    ++collected;
    ASSERT_FALSE(rec.metrics->warnings.empty()) << rec.id() << ": declared 1000x the bytes, no warning";
    EXPECT_NE(rec.metrics->warnings[0].find("DRAM bytes"), std::string::npos) << rec.metrics->warnings[0];
    // 4 Mi floats in: read once from a cold L2.
    EXPECT_NEAR(rec.metrics->derived.at("dram_bytes_read"), 4.0 * (1 << 22), 0.02 * 4.0 * (1 << 22));
  }
  EXPECT_EQ(collected, 2);  // baseline and correct
}

// Regression: with a counter-data image sized for one range, decoding a range that held cuBLAS's
// large sm90 SGEMM kernels crashed inside libnvperf_host (batched_gemm at m >= 2048), and CUPTI's
// kernel replay crashed on them too. Both modes must collect, and count the GEMMs' FMAs.
TEST(gpu_metrics, cublas_sm90_gemms_collect_in_both_modes) {
  if (profiler() == nullptr) GTEST_SKIP() << "CUPTI Range Profiler not available here";
  run_options o = run_options::quick();
  o.metrics = resolve_metrics("dram__bytes_read.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum");
  o.metrics_per_kernel = true;
  o.axis_overrides = {{"m", {"8192"}}};
  runner r(0, o);
  run_observer quiet;
  const auto rs = r.run(registry::global().select(1, {"batched_gemm"}), quiet);
  ASSERT_EQ(rs.size(), 3u);
  for (const auto& rec : rs) {
    ASSERT_EQ(rec.status, record_status::passed) << rec.id() << ": " << rec.reason;
    ASSERT_TRUE(rec.metrics.has_value()) << rec.id();
    print(rec.id().c_str(), *rec.metrics);
    ASSERT_EQ(rec.metrics->status, metrics_status::collected) << rec.metrics->reason;
    const double fmas = 40.0 * 8192 * 256 * 256;  // batch * m * n * k
    // The whole-range FFMA count of cublasSgemmBatched came back NaN from CUPTI on the H100; then it
    // must be named in the reason, never reported as a number.
    if (value(*rec.metrics, kFfma) >= 0) EXPECT_NEAR(value(*rec.metrics, kFfma), fmas, 0.02 * fmas) << rec.id();
    else EXPECT_NE(rec.metrics->reason.find("no value (NaN)"), std::string::npos) << rec.metrics->reason;
    // Per kernel, every GEMM's FMAs are counted.
    ASSERT_FALSE(rec.metrics->kernels.empty()) << rec.id() << ": per-kernel breakdown";
    double per_kernel = 0;
    for (const auto& k : rec.metrics->kernels) per_kernel += k.values.count(kFfma) ? k.values.at(kFfma) : 0;
    EXPECT_NEAR(per_kernel, fmas, 0.02 * fmas) << rec.id();
  }
}

}  // namespace
}  // namespace gpubench
