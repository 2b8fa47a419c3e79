#pragma once
// NCCL for chapter 8's all-reduce pairs: one process, one thread driving both GPUs through
// ncclCommInitAll and group calls (why: docs/chapters.md, "Chapter 8"). Only compiled
// with NCCL (GPUBENCH_HAVE_NCCL).
#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include <nccl.h>

#include "gpubench/rank_group.hpp"

#include "multi_gpu_helpers.cuh"

namespace ch08 {

/// Throws gpubench::error (exit 1) naming the failed NCCL call and NCCL's own explanation.
inline void nccl_check(ncclResult_t r, const char* what, const char* file, int line) {
  if (r == ncclSuccess) return;
  std::string msg = std::string(what) + " failed: " + ncclGetErrorString(r);
  if (const char* last = ncclGetLastError(nullptr); last != nullptr && *last != '\0') msg += " (" + std::string(last) + ")";
  msg += " at " + std::string(file) + ":" + std::to_string(line) + "; NCCL_DEBUG=WARN prints more";
  throw gpubench::runtime_error(msg);
}
#define CH08_NCCL(call) ::ch08::nccl_check((call), #call, __FILE__, __LINE__)

/// One communicator per GPU of the pair, rank 0 on the run's device and rank 1 on the peer.
class nccl_comms {
 public:
  explicit nccl_comms(const gpu_pair& g) {
    // NVLink multicast (NVLS) stays off: on the shared H200 hosts a program that uses it can put
    // every GPU of the host out of service. The device scripts set NCCL_NVLS_ENABLE=0 for every
    // process; this is the belt to those braces, set before NCCL reads its environment (at the
    // first communicator), and it keeps an explicit setting the user made.
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    const std::array<int, 2> devices{g.run, g.peer};
    const gpubench::device_guard keep(g.run);  // ncclCommInitAll may leave another device current
    CH08_NCCL(ncclCommInitAll(comms_.data(), 2, devices.data()));
    // NCCL's set-up makes CUDA calls whose benign failures (peer access already enabled) stay in
    // this thread's last-error slot; clear it, or the engine's cudaGetLastError() after the first
    // variant would blame that variant. NCCL reports its own real failures through its result.
    cudaGetLastError();
  }
  ~nccl_comms() {
    for (ncclComm_t c : comms_)
      if (c != nullptr) ncclCommDestroy(c);
  }
  nccl_comms(const nccl_comms&) = delete;
  nccl_comms& operator=(const nccl_comms&) = delete;
  [[nodiscard]] ncclComm_t run() const { return comms_[0]; }
  [[nodiscard]] ncclComm_t peer() const { return comms_[1]; }

 private:
  std::array<ncclComm_t, 2> comms_{};
};

/// ncclAllReduce (sum of floats) of both GPUs' buffers in one group, as one thread must issue
/// them: without the group the first call would wait for a peer that is never launched.
inline void all_reduce_pair(const nccl_comms& comms, const float* send_run, float* recv_run, cudaStream_t run_stream,
                            const float* send_peer, float* recv_peer, cudaStream_t peer_stream, std::size_t count,
                            int run_device) {
  const gpubench::device_guard keep(run_device);  // NCCL switches devices inside the group
  CH08_NCCL(ncclGroupStart());
  CH08_NCCL(ncclAllReduce(send_run, recv_run, count, ncclFloat, ncclSum, comms.run(), run_stream));
  CH08_NCCL(ncclAllReduce(send_peer, recv_peer, count, ncclFloat, ncclSum, comms.peer(), peer_stream));
  CH08_NCCL(ncclGroupEnd());
}

/// The NCCL communicator of a collective run (`gpubench collective`): one per process, over the
/// group's ranks, bootstrapped as nccl-tests does under MPI: rank 0 asks ncclGetUniqueId, the id is
/// broadcast to every rank (rank_group::broadcast), and each calls ncclCommInitRank on its GPU
/// (the current device). Built once and kept in the group, so every size and State shares it.
/// Rank 0 broadcasts even when ncclGetUniqueId fails, so no rank waits for an id that never comes.
inline ncclComm_t rank_comm(gpubench::rank_group& g) {
  std::shared_ptr<void>& slot = g.slot("ch08.nccl_comm");
  if (slot) return static_cast<ncclComm_t>(slot.get());
  setenv("NCCL_NVLS_ENABLE", "0", 0);  // as nccl_comms: NVLink multicast stays off unless the user set it
  struct {
    int ok = 0;
    ncclUniqueId id{};
  } boot;
  std::string failure;
  if (g.rank() == 0) {
    const ncclResult_t r = ncclGetUniqueId(&boot.id);
    boot.ok = r == ncclSuccess ? 1 : 0;
    if (r != ncclSuccess) failure = std::string("ncclGetUniqueId failed: ") + ncclGetErrorString(r);
  }
  g.broadcast(std::as_writable_bytes(std::span(&boot, 1)), 0);
  if (boot.ok == 0) throw gpubench::runtime_error(g.rank() == 0 ? failure : "rank 0 could not create NCCL's unique id");
  ncclComm_t comm = nullptr;
  CH08_NCCL(ncclCommInitRank(&comm, g.size(), boot.id, g.rank()));
  cudaGetLastError();  // NCCL's benign set-up failures, as in nccl_comms
  slot = std::shared_ptr<void>(comm, [](void* c) { ncclCommDestroy(static_cast<ncclComm_t>(c)); });
  return comm;
}

namespace detail {
template <int = 0>
__global__ void to_dyadic_kernel(float* x, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    x[i] = rintf(x[i] * 4096.f) * (1.f / 4096.f);
}
}  // namespace detail

/// Random inputs in [-1, 1] that are multiples of 2^-12, so that a sum over up to 2048 ranks is
/// exact in float whatever order NCCL's algorithm adds in (12 fraction bits + 11 bits of count +
/// sign fit the 24-bit significand): every variant's sum then equals the baseline's bit for bit.
inline void fill_dyadic(float* x, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  gpubench::fill_uniform(x, n, seed, -1.f, 1.f, stream);
  detail::to_dyadic_kernel<><<<unsigned(std::min<std::size_t>((n + 255) / 256, 4096)), 256, 0, stream>>>(x, n);
  GPUBENCH_CHECK_LAUNCH();
}

/// nccl-tests' bus bytes of an all-reduce of `bytes` over `ranks` ranks: each rank sends and
/// receives 2(n-1)/n of the buffer, so busbw = algbw x 2(n-1)/n measures the busiest link.
inline double allreduce_bus_bytes(double bytes, std::int64_t ranks) {
  return ranks < 2 ? bytes : bytes * 2.0 * double(ranks - 1) / double(ranks);
}

}  // namespace ch08
