#pragma once
// NCCL for chapter 8's all-reduce pairs: one process, one thread driving both GPUs through
// ncclCommInitAll and group calls (why: docs/chapters.md, "Chapter 8"). Only compiled
// with NCCL (GPUBENCH_HAVE_NCCL).
#include <array>
#include <cstdlib>
#include <string>

#include <nccl.h>

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

}  // namespace ch08
