// `gpubench device --ceilings`: what this GPU can actually reach. Every ceiling is the BEST (highest
// throughput, lowest latency) of several repetitions after a warm-up: a ceiling is what the hardware
// can do, not what a typical run does. The repetitions run on the measurement engine's schedule
// (measure_candidates in gpubench/sampling.hpp: warm-ups, then a fixed count, interleaved between
// the candidates a ceiling compares). Timed with CUDA events on one stream, except the pageable
// copies and the launch latencies, which are host-timed to completion (what a user waits for).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "gpubench/ceilings.hpp"
#include "gpubench/compute_peaks.hpp"
#include "gpubench/convert.cuh"
#include "gpubench/cublas.hpp"
#include "gpubench/cublaslt.hpp"
#include "gpubench/cuda.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/sampling.hpp"

namespace gpubench {

namespace {

using host_clock = std::chrono::steady_clock;

constexpr double kMiB = 1024.0 * 1024.0;

/// A small "{}" formatter for the method strings ("{:.Nf}" for a fixed precision). Not fmt: nvcc
/// 13 cannot compile fmt 9's constexpr machinery in a .cu file.
using text_arg = std::variant<long long, unsigned long long, double, std::string>;
template <class T>
text_arg as_text_arg(const T& v) {
  if constexpr (std::is_floating_point_v<T>) return static_cast<double>(v);
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return static_cast<long long>(v);
  else if constexpr (std::is_integral_v<T>) return static_cast<unsigned long long>(v);
  else return std::string(v);
}

std::string format_args(std::string_view f, const std::vector<text_arg>& args) {
  std::string out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    const std::size_t close = f[i] == '{' ? f.find('}', i) : std::string_view::npos;
    if (close == std::string_view::npos || next >= args.size()) {
      out += f[i];
      continue;
    }
    const std::string_view spec = f.substr(i + 1, close - i - 1);  // "" or ":.Nf"
    const text_arg& a = args[next++];
    if (const auto* d = std::get_if<double>(&a)) {
      int precision = 3;
      if (spec.size() >= 3 && spec[0] == ':' && spec[1] == '.') precision = spec[2] - '0';
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.*f", precision, *d);
      out += buf;
    } else if (const auto* s = std::get_if<std::string>(&a)) {
      out += *s;
    } else if (const auto* ll = std::get_if<long long>(&a)) {
      out += std::to_string(*ll);
    } else {
      out += std::to_string(std::get<unsigned long long>(a));
    }
    i = close;
  }
  return out;
}

template <class... A>
std::string text(std::string_view f, const A&... a) {
  return format_args(f, {as_text_arg(a)...});
}

// ---------------------------------------------------------------------------------------------
// Timing helpers.

/// Seconds of GPU time of what `work` enqueues on `s`, between two events.
template <class F>
double event_seconds(cudaStream_t s, const gpubench::cuda_event& a, const gpubench::cuda_event& b, F&& work) {
  GPUBENCH_CUDA(cudaEventRecord(a.get(), s));
  work();
  GPUBENCH_CUDA(cudaEventRecord(b.get(), s));
  GPUBENCH_CUDA(cudaEventSynchronize(b.get()));
  GPUBENCH_CUDA(cudaGetLastError());
  float ms = 0;
  GPUBENCH_CUDA(cudaEventElapsedTime(&ms, a.get(), b.get()));
  return static_cast<double>(ms) * 1e-3;
}

/// Each candidate's best (lowest) time over the engine's fixed-count, interleaved schedule.
std::vector<double> best_of(const std::vector<timed_candidate>& candidates, int repetitions) {
  std::vector<double> best;
  for (const auto& samples : measure_candidates(candidates, repetitions))
    best.push_back(*std::min_element(samples.begin(), samples.end()));
  return best;
}

/// GPUBENCH_CEILINGS_DEBUG=1 prints every candidate of a step to stderr (for tuning on a new GPU).
bool debug_enabled() {
  const char* v = std::getenv("GPUBENCH_CEILINGS_DEBUG");
  return v != nullptr && *v != '\0' && *v != '0';
}

double seconds_since(host_clock::time_point t0) {
  return std::chrono::duration<double>(host_clock::now() - t0).count();
}

ceiling make(const std::string& name, const std::string& unit, double value, double theoretical, double reference,
             const std::string& method) {
  return ceiling{name, unit, value, theoretical, reference, method};
}

// ---------------------------------------------------------------------------------------------
// Kernels.

/// Grid-stride float4 copy, U independent 16-byte loads in flight per thread before the stores.
/// Stream=true uses the evict-first (".cs") hints: data touched once should not displace L2.
template <int U, bool Stream>
__global__ void copy_grid_stride(const float4* __restrict__ in, float4* __restrict__ out, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = Stream ? __ldcs(in + i + u * stride) : __ldg(in + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if constexpr (Stream) __stcs(out + i + u * stride, v[u]);
      else out[i + u * stride] = v[u];
    }
  }
  for (; i < n; i += stride) out[i] = in[i];
}

/// One tile of U * blockDim float4 per block (no grid-stride loop, many waves of short blocks).
template <int U, bool Stream>
__global__ void copy_tiled(const float4* __restrict__ in, float4* __restrict__ out, std::size_t n) {
  const std::size_t base = std::size_t(blockIdx.x) * blockDim.x * U + threadIdx.x;
  float4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const std::size_t i = base + std::size_t(u) * blockDim.x;
    if (i < n) v[u] = Stream ? __ldcs(in + i) : __ldg(in + i);
  }
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const std::size_t i = base + std::size_t(u) * blockDim.x;
    if (i < n) {
      if constexpr (Stream) __stcs(out + i, v[u]);
      else out[i] = v[u];
    }
  }
}

// L2-only accesses that the compiler must issue exactly as written (volatile): a repeated copy of
// the same elements would otherwise be folded into one.
__device__ __forceinline__ float4 load_cg(const float4* p) {
  float4 v;
  asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}
__device__ __forceinline__ void store_cg(float4* p, float4 v) {
  asm volatile("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
}

constexpr int kL2MaxPerThread = 8;

/// Copies `per_thread` float4 per thread (strided by the grid), `passes` times over the same
/// small working set, bypassing L1 (.cg), so every access after the first pass is an L2 hit.
__global__ void copy_l2_resident(const float4* in, float4* out, int per_thread, int passes) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const std::size_t tid = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int p = 0; p < passes; ++p) {
    float4 v[kL2MaxPerThread];
#pragma unroll
    for (int u = 0; u < kL2MaxPerThread; ++u)
      if (u < per_thread) v[u] = load_cg(in + tid + u * stride);
#pragma unroll
    for (int u = 0; u < kL2MaxPerThread; ++u)
      if (u < per_thread) store_cg(out + tid + u * stride, v[u]);
  }
}

constexpr int kChains = 8;   // independent FMA chains per thread (hide the FMA latency)
constexpr int kUnroll = 32;  // FMAs of each chain per loop trip (amortize the loop overhead)

/// kChains * kUnroll dependent-per-chain FMAs per trip, all operands in registers. The sum is
/// written out so nothing can be dropped; x and y come from the host, so nothing can be folded.
__device__ __forceinline__ float fma_of(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double fma_of(double a, double b, double c) { return fma(a, b, c); }

template <class T>
__global__ void fma_peak(T* out, int trips, T x, T y) {
  T a[kChains];
#pragma unroll
  for (int j = 0; j < kChains; ++j) a[j] = T(threadIdx.x + j) * T(1e-3);
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int j = 0; j < kChains; ++j) a[j] = fma_of(a[j], x, y);
    }
  }
  T s = 0;
#pragma unroll
  for (int j = 0; j < kChains; ++j) s += a[j];
  out[std::size_t(blockIdx.x) * blockDim.x + threadIdx.x] = s;
}

__global__ void empty_kernel() {}

// ---------------------------------------------------------------------------------------------
// The steps. Each returns its table entries.

struct context {
  const device_info& dev;
  ceilings theory;
  cudaStream_t stream;
  gpubench::cuda_event start, stop;
  int sms = 0;

  /// A candidate timed with events around what `work` enqueues on the stream.
  timed_candidate on_events(std::function<void()> work, int warmups = 1) {
    return {[this, work = std::move(work)] { return event_seconds(stream, start, stop, work); }, warmups};
  }
};

/// DRAM: float4 copy over 1 GiB in + 1 GiB out, several kernel shapes, best of all; cudaMemcpy
/// D2D of the same size as the reference. Bytes counted = read + written.
ceiling measure_dram(context& cx) {
  const std::size_t bytes = std::size_t(1) << 30;
  const std::size_t n = bytes / sizeof(float4);
  device_buffer<float4> in(n), out(n);
  fill_uniform(reinterpret_cast<float*>(in.get()), n * 4, 0x5eedULL, -1.f, 1.f, cx.stream);
  GPUBENCH_CUDA(cudaMemsetAsync(out.get(), 0, bytes, cx.stream));

  constexpr unsigned threads = 256;
  struct shape {
    std::string what;
    std::function<void()> launch;
  };
  const auto grid_stride_blocks = [&](const void* kernel) {
    int per_sm = 0;
    GPUBENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, int(threads), 0));
    return unsigned(std::max(1, per_sm) * cx.sms);
  };
  const unsigned gs4 = grid_stride_blocks(reinterpret_cast<const void*>(&copy_grid_stride<4, false>));
  const unsigned gs4s = grid_stride_blocks(reinterpret_cast<const void*>(&copy_grid_stride<4, true>));
  const unsigned gs2 = grid_stride_blocks(reinterpret_cast<const void*>(&copy_grid_stride<2, false>));
  const auto tiles = [&](int u) { return unsigned((n + std::size_t(threads) * u - 1) / (std::size_t(threads) * u)); };
  std::vector<shape> shapes;
  shapes.push_back({text("grid-stride, 4 loads in flight, {} blocks of {}", gs4, threads), [&] {
                      copy_grid_stride<4, false><<<gs4, threads, 0, cx.stream>>>(in.get(), out.get(), n);
                      GPUBENCH_CHECK_LAUNCH();
                    }});
  shapes.push_back({text("grid-stride, 4 loads in flight, evict-first hints, {} blocks of {}", gs4s, threads), [&] {
                      copy_grid_stride<4, true><<<gs4s, threads, 0, cx.stream>>>(in.get(), out.get(), n);
                      GPUBENCH_CHECK_LAUNCH();
                    }});
  shapes.push_back({text("grid-stride, 2 loads in flight, {} blocks of {}", gs2, threads), [&] {
                      copy_grid_stride<2, false><<<gs2, threads, 0, cx.stream>>>(in.get(), out.get(), n);
                      GPUBENCH_CHECK_LAUNCH();
                    }});
  const unsigned gs8 = grid_stride_blocks(reinterpret_cast<const void*>(&copy_grid_stride<8, false>));
  shapes.push_back({text("grid-stride, 8 loads in flight, {} blocks of {}", gs8, threads), [&] {
                      copy_grid_stride<8, false><<<gs8, threads, 0, cx.stream>>>(in.get(), out.get(), n);
                      GPUBENCH_CHECK_LAUNCH();
                    }});
  shapes.push_back({text("tiled, 2 loads in flight, {} blocks of {}", tiles(2), threads), [&] {
                      copy_tiled<2, false><<<tiles(2), threads, 0, cx.stream>>>(in.get(), out.get(), n);
                      GPUBENCH_CHECK_LAUNCH();
                    }});
  shapes.push_back({text("tiled, 4 loads in flight, {} blocks of {}", tiles(4), threads), [&] {
                      copy_tiled<4, false><<<tiles(4), threads, 0, cx.stream>>>(in.get(), out.get(), n);
                      GPUBENCH_CHECK_LAUNCH();
                    }});
  shapes.push_back({text("tiled, 4 loads in flight, evict-first hints, {} blocks of {}", tiles(4), threads), [&] {
                      copy_tiled<4, true><<<tiles(4), threads, 0, cx.stream>>>(in.get(), out.get(), n);
                      GPUBENCH_CHECK_LAUNCH();
                    }});
  shapes.push_back({text("tiled, 8 loads in flight, {} blocks of {}", tiles(8), threads), [&] {
                      copy_tiled<8, false><<<tiles(8), threads, 0, cx.stream>>>(in.get(), out.get(), n);
                      GPUBENCH_CHECK_LAUNCH();
                    }});
  const auto memcpy_d2d = [&] { GPUBENCH_CUDA(cudaMemcpyAsync(out.get(), in.get(), bytes, cudaMemcpyDeviceToDevice, cx.stream)); };

  // Interleaved on the engine's schedule: a drift in clocks or temperature hits the kernels and
  // the reference alike. Candidate 0 is cudaMemcpy, then the shapes.
  constexpr int reps = 10;
  std::vector<timed_candidate> candidates{cx.on_events(memcpy_d2d)};
  for (const auto& s : shapes) candidates.push_back(cx.on_events(s.launch));
  std::vector<double> best = best_of(candidates, reps);
  const double best_memcpy = best.front();
  best.erase(best.begin());
  const std::size_t winner = std::size_t(std::min_element(best.begin(), best.end()) - best.begin());
  const double moved = 2.0 * double(bytes);
  if (debug_enabled()) {
    std::fprintf(stderr, "[ceilings] dram cudaMemcpy D2D: %.1f GB/s\n", moved / best_memcpy / 1e9);
    for (std::size_t k = 0; k < shapes.size(); ++k)
      std::fprintf(stderr, "[ceilings] dram %-70s %.1f GB/s (%.3f of cudaMemcpy)\n", shapes[k].what.c_str(),
                   moved / best[k] / 1e9, best_memcpy / best[k]);
  }
  return make("dram", "B/s", moved / best[winner], cx.theory.dram_bytes_per_s, moved / best_memcpy,
              text("float4 copy kernel, 1 GiB read + 1 GiB written (both counted); best of {} runs over {} kernel "
                          "shapes, fastest: {}; reference: cudaMemcpy D2D of 1 GiB, best of {}",
                          reps, shapes.size(), shapes[winner].what, reps));
}

/// L2: the same copy over a working set of about a quarter of L2 (read + write), repeated many
/// times inside one launch so every pass after the first hits L2.
ceiling measure_l2(context& cx) {
  constexpr unsigned threads = 256;
  const std::uint64_t l2 = cx.dev.l2_bytes > 0 ? cx.dev.l2_bytes : std::uint64_t(40) << 20;
  // Half the resident threads, with enough float4 per thread to reach ~L2/4 of traffic per pass.
  unsigned blocks = unsigned(cx.sms) * 4;
  const double per_pass_target = double(l2) / 4.0;
  const double per_thread_bytes = 2.0 * sizeof(float4);  // one load and one store
  int per_thread = int(std::lround(per_pass_target / (per_thread_bytes * blocks * threads)));
  if (per_thread < 1) {
    per_thread = 1;
    blocks = std::max(unsigned(cx.sms), unsigned(per_pass_target / (per_thread_bytes * threads)));
  }
  per_thread = std::min(per_thread, kL2MaxPerThread);
  const std::size_t n = std::size_t(blocks) * threads * per_thread;
  device_buffer<float4> in(n), out(n);
  fill_uniform(reinterpret_cast<float*>(in.get()), n * 4, 0x12ULL, -1.f, 1.f, cx.stream);
  GPUBENCH_CUDA(cudaMemsetAsync(out.get(), 0, n * sizeof(float4), cx.stream));
  const double per_pass = 2.0 * double(n) * sizeof(float4);
  // ~2 GB of traffic per launch: long enough for events, short at L2 speed (well under a ms at 5+ TB/s).
  const int passes = std::max(16, int(2e9 / per_pass));
  const auto launch = [&] {
    copy_l2_resident<<<blocks, threads, 0, cx.stream>>>(in.get(), out.get(), per_thread, passes);
    GPUBENCH_CHECK_LAUNCH();
  };
  constexpr int reps = 10;
  const double best = best_of({cx.on_events(launch)}, reps).front();
  return make("l2", "B/s", per_pass * passes / best, 0, 0,
              text("float4 copy over a {:.1f} MiB working set (read + written, both counted; L2 is {:.0f} MiB), "
                          "{} passes in one launch, L1 bypassed (.cg); best of {}",
                          per_pass / kMiB, double(l2) / kMiB, passes, reps));
}

/// FP32 / FP64: register-resident FMA chains on every SM. FLOPs = 2 x FMAs.
template <class T>
ceiling measure_fma(context& cx, const std::string& name, double theoretical, int trips) {
  constexpr unsigned threads = 256;
  int per_sm = 0;
  GPUBENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, &fma_peak<T>, int(threads), 0));
  const unsigned blocks = unsigned(std::max(1, per_sm) * cx.sms);
  device_buffer<T> out(std::size_t(blocks) * threads);
  const auto launch = [&] {
    fma_peak<T><<<blocks, threads, 0, cx.stream>>>(out.get(), trips, T(0.999), T(1e-3));
    GPUBENCH_CHECK_LAUNCH();
  };
  constexpr int reps = 10;
  const double best = best_of({cx.on_events(launch)}, reps).front();
  const double flops = 2.0 * double(blocks) * threads * double(trips) * kUnroll * kChains;
  return make(name, "FLOP/s", flops / best, theoretical, 0,
              text("{} independent FMA chains per thread in registers, {} blocks of {} (every SM full), "
                          "FLOPs = 2 x FMAs; best of {}",
                          kChains, blocks, threads, reps));
}

/// Tensor peaks through cuBLAS (tf32, fp16, bf16) and cuBLASLt (fp8 on cc >= 8.9) at 8192^3.
void measure_tensor(context& cx, const std::function<void(const std::string&)>& progress, std::vector<ceiling>& table) {
  constexpr int n = 8192;
  const std::size_t elems = std::size_t(n) * n;
  const double flops = 2.0 * double(n) * n * n;
  constexpr int warmup = 3, reps = 10;

  device_buffer<float> a(elems), b(elems), c(elems);
  fill_uniform(a.get(), elems, 0xa11ceULL, -1.f, 1.f, cx.stream);
  fill_uniform(b.get(), elems, 0xb0bULL, -1.f, 1.f, cx.stream);
  cublas_handle blas(cx.stream);

  const auto best_call = [&](const std::function<void()>& call) { return best_of({cx.on_events(call, warmup)}, reps).front(); };
  const auto entry = [&](const std::string& name, double seconds, const std::string& how) {
    const double v = flops / seconds;
    const flop_kind* kind = flop_kind_named(name);
    table.push_back(make(name, "FLOP/s", v, kind != nullptr ? theoretical_peak(cx.dev, *kind) : 0, v,
                         text("{} at {}x{}x{} on random inputs, FLOPs = 2n^3; best of {} after {} warm-up; "
                              "this IS the vendor library, so reference = value",
                              how, n, n, n, reps, warmup)));
  };
  const float alpha = 1.f, beta = 0.f;

  if (progress) progress("tf32");
  entry("tf32",
        best_call([&] {
          GPUBENCH_CUBLAS(cublasGemmEx(blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a.get(), CUDA_R_32F, n,
                                       b.get(), CUDA_R_32F, n, &beta, c.get(), CUDA_R_32F, n,
                                       CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
        }),
        "cublasGemmEx, fp32 data, CUBLAS_COMPUTE_32F_FAST_TF32");

  const auto half_precision = [&](auto tag, cudaDataType_t type, const std::string& name) {
    using T = decltype(tag);
    if (progress) progress(name);
    device_buffer<T> a16(elems), b16(elems), c16(elems);
    convert_from_float<T>(a.get(), a16.get(), elems, cx.stream);
    convert_from_float<T>(b.get(), b16.get(), elems, cx.stream);
    entry(name,
          best_call([&] {
            GPUBENCH_CUBLAS(cublasGemmEx(blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a16.get(), type, n,
                                         b16.get(), type, n, &beta, c16.get(), type, n, CUBLAS_COMPUTE_32F,
                                         CUBLAS_GEMM_DEFAULT));
          }),
          text("cublasGemmEx, {} data in and out, fp32 accumulation", name));
  };
  half_precision(__half{}, CUDA_R_16F, "fp16");
  half_precision(__nv_bfloat16{}, CUDA_R_16BF, "bf16");

  // FP8 (E4M3) through cuBLASLt: A transposed ("TN", the layout FP8 requires), bf16 output. A
  // cuBLASLt without an FP8 kernel for this device answers not-supported: then no entry.
  if (cx.dev.cc_major * 10 + cx.dev.cc_minor < 89) return;
  if (progress) progress("fp8");
  device_buffer<__nv_fp8_e4m3> a8(elems), b8(elems);
  device_buffer<__nv_bfloat16> d16(elems);
  convert_from_float<__nv_fp8_e4m3>(a.get(), a8.get(), elems, cx.stream);
  convert_from_float<__nv_fp8_e4m3>(b.get(), b8.get(), elems, cx.stream);
  lt_handle lt;
  lt_matmul_desc op(CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_T, CUBLAS_OP_N);
  op.set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, std::int8_t{1});  // a ceiling: the fastest FP8 mode the library offers
  lt_layout la(CUDA_R_8F_E4M3, n, n, n), lb(CUDA_R_8F_E4M3, n, n, n), ld(CUDA_R_16BF, n, n, n);
  const std::size_t workspace_bytes = std::size_t(64) << 20;
  device_buffer<unsigned char> workspace(workspace_bytes);
  const auto algo = pick_algo(lt.h, op.d, la.l, lb.l, ld.l, workspace_bytes);
  if (!algo) return;
  // Probe once outside the timing: an algorithm can still refuse at run time.
  const auto fp8_call = [&] {
    return cublasLtMatmul(lt.h, op.d, &alpha, a8.get(), la.l, b8.get(), lb.l, &beta, d16.get(), ld.l, d16.get(), ld.l,
                          &*algo, workspace.get(), workspace_bytes, cx.stream);
  };
  const cublasStatus_t probe = fp8_call();
  if (probe == CUBLAS_STATUS_NOT_SUPPORTED) return;
  GPUBENCH_CUBLAS(probe);
  entry("fp8", best_call([&] { GPUBENCH_CUBLAS(fp8_call()); }),
        "cublasLtMatmul, fp8 E4M3 data (A transposed), bf16 out, fp32 accumulation (fast mode), unit scales");
}

/// Host <-> device: 256 MiB, pinned (cudaMemcpyAsync, events) and pageable (cudaMemcpy, host-timed
/// to completion, buffers pre-touched so page faults stay out of it).
void measure_pcie(context& cx, std::vector<ceiling>& table) {
  const std::size_t bytes = std::size_t(256) << 20;
  constexpr int reps = 5;
  device_buffer<unsigned char> dev(bytes);
  GPUBENCH_CUDA(cudaMemsetAsync(dev.get(), 1, bytes, cx.stream));
  const double th = cx.theory.pcie_bytes_per_s;
  {
    pinned_buffer<unsigned char> host(bytes);
    std::memset(host.get(), 2, bytes);
    const auto h2d = [&] { GPUBENCH_CUDA(cudaMemcpyAsync(dev.get(), host.get(), bytes, cudaMemcpyHostToDevice, cx.stream)); };
    const auto d2h = [&] { GPUBENCH_CUDA(cudaMemcpyAsync(host.get(), dev.get(), bytes, cudaMemcpyDeviceToHost, cx.stream)); };
    const std::vector<double> best = best_of({cx.on_events(h2d), cx.on_events(d2h)}, reps);
    const double best_h2d = best[0], best_d2h = best[1];
    const auto how = [&](const char* dir) {
      return text("cudaMemcpyAsync of 256 MiB {} pinned (cudaMallocHost) memory, events; best of {}", dir, reps);
    };
    table.push_back(make("pcie_h2d_pinned", "B/s", double(bytes) / best_h2d, th, 0, how("from")));
    table.push_back(make("pcie_d2h_pinned", "B/s", double(bytes) / best_d2h, th, 0, how("to")));

    // Both directions at once, on two streams (two copy engines): a copy/compute pipeline keeps
    // both busy, and a link or host may not sustain each direction's one-way rate then. Each
    // direction queues kChained copies back to back, so neither runs alone for long at either end;
    // events fork and join the streams. Per-direction rate = bytes per direction / time.
    constexpr int kChained = 4;
    device_buffer<unsigned char> dev2(bytes);
    pinned_buffer<unsigned char> host2(bytes);
    std::memset(host2.get(), 4, bytes);
    cuda_stream other;
    cuda_event forked, joined;
    const auto both = [&] {
      GPUBENCH_CUDA(cudaEventRecord(forked.get(), cx.stream));
      GPUBENCH_CUDA(cudaStreamWaitEvent(other.get(), forked.get(), 0));
      for (int i = 0; i < kChained; ++i) {
        GPUBENCH_CUDA(cudaMemcpyAsync(dev.get(), host.get(), bytes, cudaMemcpyHostToDevice, cx.stream));
        GPUBENCH_CUDA(cudaMemcpyAsync(host2.get(), dev2.get(), bytes, cudaMemcpyDeviceToHost, other.get()));
      }
      GPUBENCH_CUDA(cudaEventRecord(joined.get(), other.get()));
      GPUBENCH_CUDA(cudaStreamWaitEvent(cx.stream, joined.get(), 0));
    };
    const double best_both = best_of({cx.on_events(both)}, 3).front();
    table.push_back(make("pcie_duplex_pinned", "B/s", double(kChained) * double(bytes) / best_both, th, 0,
                         text("{} x 256 MiB H2D and {} x 256 MiB D2H at once on two streams, pinned memory, events "
                              "around both; per-direction rate; best of 3",
                              kChained, kChained)));
  }
  {
    const std::unique_ptr<unsigned char[]> host(new unsigned char[bytes]);
    std::memset(host.get(), 3, bytes);  // pre-touch: every page mapped before the first copy
    GPUBENCH_CUDA(cudaStreamSynchronize(cx.stream));
    const auto timed = [&](void* dst, const void* src, cudaMemcpyKind kind) {
      const auto t0 = host_clock::now();
      GPUBENCH_CUDA(cudaMemcpy(dst, src, bytes, kind));
      GPUBENCH_CUDA(cudaDeviceSynchronize());  // a pageable H2D may return before its DMA ends
      return seconds_since(t0);
    };
    const std::vector<double> best =
        best_of({{[&] { return timed(dev.get(), host.get(), cudaMemcpyHostToDevice); }},
                 {[&] { return timed(host.get(), dev.get(), cudaMemcpyDeviceToHost); }}},
                reps);
    const double best_h2d = best[0], best_d2h = best[1];
    const auto how = [&](const char* dir) {
      return text("cudaMemcpy of 256 MiB {} pageable (malloc, pre-touched) memory, host-timed to completion; best of {}",
                         dir, reps);
    };
    table.push_back(make("pcie_h2d_pageable", "B/s", double(bytes) / best_h2d, th, 0, how("from")));
    table.push_back(make("pcie_d2h_pageable", "B/s", double(bytes) / best_d2h, th, 0, how("to")));
  }
}

/// Launch latency: 1000 empty kernels back to back on a stream vs the same 1000 as graph nodes.
void measure_launch(context& cx, std::vector<ceiling>& table) {
  constexpr int launches = 1000, reps = 10;
  const auto burst = [&] {
    for (int i = 0; i < launches; ++i) empty_kernel<<<1, 1, 0, cx.stream>>>();
    GPUBENCH_CHECK_LAUNCH();  // once per burst: a check per launch would be timed too
  };
  // Host-timed to completion, per launch; the stream burst and the graph replay interleaved.
  const cuda_graph graph(cx.stream, burst);
  const auto host_timed = [&](const std::function<void()>& enqueue) {
    return timed_candidate{[&cx, enqueue] {
      const auto t0 = host_clock::now();
      enqueue();
      GPUBENCH_CUDA(cudaStreamSynchronize(cx.stream));
      return seconds_since(t0) / launches;
    }};
  };
  const std::vector<double> best =
      best_of({host_timed(burst), host_timed([&] { graph.launch(cx.stream); })}, reps);
  const double best_stream = best[0], best_graph = best[1];
  table.push_back(make("launch_stream", "s", best_stream, 0, 0,
                       text("{} empty kernels back to back on one stream, host-timed to completion, per launch; "
                                   "best of {}",
                                   launches, reps)));
  table.push_back(make("launch_graph", "s", best_graph, 0, 0,
                       text("the same {} launches captured into one graph, host-timed replay to completion, "
                                   "per node; best of {}",
                                   launches, reps)));
}

const ceiling* find(const std::vector<ceiling>& t, const std::string& name) {
  for (const auto& c : t)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace

ceilings measure_ceilings(const device_info& d, const std::function<void(const std::string&)>& progress) {
  const auto step = [&](const std::string& name) {
    if (progress) progress(name);
  };
  context cx{d, theoretical_ceilings(d), nullptr, {}, {}, d.sm_count};
  if (cx.sms <= 0) GPUBENCH_CUDA(cudaDeviceGetAttribute(&cx.sms, cudaDevAttrMultiProcessorCount, d.ordinal));
  gpubench::cuda_stream stream;
  cx.stream = stream.get();

  ceilings out;
  auto& t = out.table;
  step("dram");
  t.push_back(measure_dram(cx));
  step("l2");
  t.push_back(measure_l2(cx));
  step("fp32");
  t.push_back(measure_fma<float>(cx, "fp32", cx.theory.fp32_flops_per_s, 2048));
  step("fp64");
  t.push_back(measure_fma<double>(cx, "fp64", cx.theory.fp64_flops_per_s, 1024));
  measure_tensor(cx, progress, t);  // reports tf32, fp16, bf16 and fp8 itself
  step("pcie");
  measure_pcie(cx, t);
  step("launch");
  measure_launch(cx, t);
  GPUBENCH_CUDA(cudaStreamSynchronize(cx.stream));

  out.source = "measured";
  out.measured_at = now_utc_iso8601();
  // The floors use the fastest thing that moved the bytes: our kernel or cudaMemcpy.
  if (const auto* x = find(t, "dram")) out.dram_bytes_per_s = std::max(x->value, x->reference);
  const auto* h2d = find(t, "pcie_h2d_pinned");
  const auto* d2h = find(t, "pcie_d2h_pinned");
  if (h2d != nullptr && d2h != nullptr) out.pcie_bytes_per_s = std::min(h2d->value, d2h->value);
  if (const auto* x = find(t, "pcie_duplex_pinned")) out.pcie_duplex_bytes_per_s = x->value;
  if (const auto* x = find(t, "fp32")) out.fp32_flops_per_s = x->value;
  if (const auto* x = find(t, "fp64")) out.fp64_flops_per_s = x->value;
  if (const auto* x = find(t, "tf32")) out.tf32_flops_per_s = x->value;
  if (const auto* x = find(t, "fp16")) out.fp16_flops_per_s = x->value;
  if (const auto* x = find(t, "bf16")) out.bf16_flops_per_s = x->value;
  if (const auto* x = find(t, "fp8")) out.fp8_flops_per_s = x->value;
  fill_missing_peaks(out, d);  // INT8 and FP64 tensor peaks are not measured: theoretical ones
  return out;
}

}  // namespace gpubench
