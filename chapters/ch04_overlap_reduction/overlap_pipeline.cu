// Host array -> GPU kernel -> host array: copy in, compute, copy out one after another vs a
// chunked pipeline over several streams that overlaps both copy directions with the compute.
#include <algorithm>
#include <array>

#include "gpubench/cuda.hpp"

namespace {

using gpubench::size_point;

constexpr int kThreads = 256;
// Stream order makes chunk c + kStreams's copy-in wait for chunk c's copy-out; with 4 streams that
// copy-out has finished by then (copy in + compute + copy out < 4 copy slots), so the engines never idle.
constexpr int kStreams = 4;
constexpr int kChunks = 32;  // fill and drain cost about one chunk's stages: more chunks, less of it
// FMAs per element: sized so the kernel takes somewhat less than one direction's copy (about 4
// bytes over PCIe per element vs 2 * kFma FLOPs at the FP32 peak), so the copies are the floor
// and the overlap is what the pipeline must win.
constexpr int kFma = 1280;

// A dependent FMA chain per element; the constants keep values bounded (fixed point 1) and
// finite. Both variants run this kernel on the same elements, so the results are bit-identical.
__global__ void fma_chain(float* data, std::size_t count) {
  const std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x;
  if (i >= count) return;
  float y = data[i];
#pragma unroll 64
  for (int k = 0; k < kFma; ++k) y = fmaf(y, 0.9990234375f, 0.0009765625f);  // y = (1 - 2^-10) y + 2^-10
  data[i] = y;
}

void compute(float* data, std::size_t count, gpubench::stream_t stream) {
  if (count == 0) return;
  fma_chain<<<unsigned((count + kThreads - 1) / kThreads), kThreads, 0, stream>>>(data, count);
  GPUBENCH_CHECK_LAUNCH();
}

struct overlap_state : gpubench::pair_state {
  std::size_t count;
  gpubench::pinned_buffer<float> host_in, host_out;  // pinned: the copy engines DMA them directly
  gpubench::device_buffer<float> device;              // worked on in place
  std::array<gpubench::cuda_stream, kStreams> workers;
  gpubench::cuda_event fork;
  std::array<gpubench::cuda_event, kStreams> joins;

  overlap_state(const size_point& z, const gpubench::setup_context& ctx)
      : count(std::size_t(z["size_mib"]) << 18),  // MiB / 4 bytes
        host_in(count), host_out(count), device(count) {
    gpubench::fill_uniform(device.get(), count, gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    GPUBENCH_CUDA(cudaStreamSynchronize(ctx.stream));
    GPUBENCH_CUDA(cudaMemcpy(host_in.get(), device.get(), device.bytes(), cudaMemcpyDeviceToHost));
  }

  gpubench::output_view output(std::string_view) const override {
    return {host_out.get(), count, gpubench::element_type::f32, gpubench::memory_space::host};
  }
};

void serial(overlap_state& s, gpubench::stream_t stream) {
  GPUBENCH_CUDA(cudaMemcpyAsync(s.device.get(), s.host_in.get(), s.device.bytes(), cudaMemcpyHostToDevice, stream));
  compute(s.device.get(), s.count, stream);
  GPUBENCH_CUDA(cudaMemcpyAsync(s.host_out.get(), s.device.get(), s.device.bytes(), cudaMemcpyDeviceToHost, stream));
}

// Chunk c goes to stream c % kStreams as copy in -> compute -> copy out, so within a stream the
// three stages stay ordered while different streams' stages run at once: the host-to-device and
// device-to-host copy engines and the SMs each work on a different chunk. Fork/join through
// events makes the given stream's stop event wait for every worker, so CUDA events time it all.
void pipelined(overlap_state& s, gpubench::stream_t stream) {
  GPUBENCH_CUDA(cudaEventRecord(s.fork.get(), stream));
  for (auto& w : s.workers) GPUBENCH_CUDA(cudaStreamWaitEvent(w.get(), s.fork.get(), 0));
  const std::size_t chunk = (s.count + kChunks - 1) / kChunks;
  for (int c = 0; c < kChunks; ++c) {
    const std::size_t first = std::min(s.count, std::size_t(c) * chunk), n = std::min(chunk, s.count - first);
    const cudaStream_t w = s.workers[c % kStreams].get();
    float* d = s.device.get() + first;
    GPUBENCH_CUDA(cudaMemcpyAsync(d, s.host_in.get() + first, n * sizeof(float), cudaMemcpyHostToDevice, w));
    compute(d, n, w);
    GPUBENCH_CUDA(cudaMemcpyAsync(s.host_out.get() + first, d, n * sizeof(float), cudaMemcpyDeviceToHost, w));
  }
  for (int k = 0; k < kStreams; ++k) {
    GPUBENCH_CUDA(cudaEventRecord(s.joins[k].get(), s.workers[k].get()));
    GPUBENCH_CUDA(cudaStreamWaitEvent(stream, s.joins[k].get(), 0));
  }
}

const gpubench::registration reg =
    gpubench::pair<overlap_state>("overlap_pipeline", "Copy in, compute, copy out: serial vs chunked over 4 streams")
        .explain("A GPU can copy host to device, copy device to host and compute all at once: it has a copy "
                 "engine per direction, PCIe is full duplex, and the SMs compute independently of both. The serial "
                 "baseline uses one of them at a time (copy the whole pinned array in, run the kernel, copy it "
                 "all out), so its time is the sum of the three. The pipelined variant cuts the array into 32 "
                 "chunks dealt round-robin to 4 streams, each chunk copied in, computed and copied out in its "
                 "stream; while chunk i computes, chunk i+1 is being copied in and chunk i-1 copied out, so the "
                 "total approaches the slowest stage alone plus one chunk's fill and drain. Asynchronous copies "
                 "only overlap from pinned host memory. The kernel does a fixed chain of FMAs per element, "
                 "sized to take somewhat less than one direction's copy. The work model declares the array's "
                 "bytes in each direction at once (path pcie_duplex: the floor uses the per-direction rate that "
                 "`gpubench device --ceilings` measures with both copy engines busy, which a host may not sustain "
                 "at the one-way rate) and the kernel's FP32 FLOPs over the FP32 peak, so the floor is "
                 "max(copy time, compute time) and 1 / fraction_of_floor is the overlap efficiency: total time "
                 "over max(copy time, compute time), 1 when the overlap is perfect.")
        .axis("size_mib", {16, 256, 1024})
        .work([](const size_point& z) {
          const double bytes = double(z["size_mib"]) * 1048576.0;
          return gpubench::work{.bytes = bytes, .flops = bytes / 4 * 2 * kFma, .path = gpubench::bytes_path::pcie_duplex};
        })
        .variant("serial", "whole-array H2D, one kernel, whole-array D2H on one stream", serial)
        .variant("pipelined", "32 chunks round-robin over 4 streams: H2D, kernel and D2H overlap", pipelined)
        .check(gpubench::tolerance::exact())
        // Timed with CUDA events: everything is asynchronous device work, and the fork/join above
        // brackets every worker stream between the engine's start and stop events. Hot cache: the
        // data lives on the host and crosses PCIe every run, so the L2's state is irrelevant; a
        // cold-mode flush would only add a large memset between samples.
        .cache(gpubench::cache_mode::hot);

}  // namespace
