// Host<->device copies: from pageable memory (staged by the driver) vs from page-locked memory.
#include <memory>

#include "gpubench/cuda.hpp"
#include "gpubench/host_parallel.hpp"

namespace {

using gpubench::size_point;

struct transfer_state : gpubench::pair_state {
  bool h2d;
  std::size_t count;
  gpubench::device_buffer<float> device;
  std::unique_ptr<float[]> pageable;
  gpubench::pinned_buffer<float> pinned;

  transfer_state(const size_point& z, const gpubench::setup_context& ctx)
      : h2d(z.label("dir") == "h2d"), count(std::size_t(z["size_mib"]) << 18),  // MiB / 4 bytes
        device(count), pageable(new float[count]), pinned(count) {
    gpubench::fill_uniform(device.get(), count, ctx.seed, -1.f, 1.f, ctx.stream);
    GPUBENCH_CUDA(cudaStreamSynchronize(ctx.stream));
    // Both host buffers hold the same random data (and every page is touched before timing). The
    // pageable copy is made by host threads from the pinned one: first touch of 1 GiB from one
    // thread took ~0.4 s of setup on the VMs we measure on.
    GPUBENCH_CUDA(cudaMemcpy(pinned.get(), device.get(), device.bytes(), cudaMemcpyDeviceToHost));
    gpubench::parallel_copy(pageable.get(), pinned.get(), device.bytes());
  }

  gpubench::output_view output(std::string_view variant) const override {
    if (h2d) return {device.get(), count};
    float* host = variant == "baseline" ? pageable.get() : pinned.get();
    return {host, count, gpubench::element_type::f32, gpubench::memory_space::host};
  }
};

void pageable_copy(transfer_state& s, gpubench::stream_t) {
  if (s.h2d) {
    GPUBENCH_CUDA(cudaMemcpy(s.device.get(), s.pageable.get(), s.device.bytes(), cudaMemcpyHostToDevice));
    // From pageable memory, cudaMemcpy may return once the last chunk is staged, before its DMA
    // lands (CUDA Runtime API, "API synchronization behavior"): wait for the legacy stream that
    // carries it, so the bytes are on the device when the variant returns, for the timing and for
    // whatever reads them on another stream.
    GPUBENCH_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
  } else {
    GPUBENCH_CUDA(cudaMemcpy(s.pageable.get(), s.device.get(), s.device.bytes(), cudaMemcpyDeviceToHost));
  }
}

void pinned_copy(transfer_state& s, gpubench::stream_t stream) {
  if (s.h2d) GPUBENCH_CUDA(cudaMemcpyAsync(s.device.get(), s.pinned.get(), s.device.bytes(), cudaMemcpyHostToDevice, stream));
  else GPUBENCH_CUDA(cudaMemcpyAsync(s.pinned.get(), s.device.get(), s.device.bytes(), cudaMemcpyDeviceToHost, stream));
}

const gpubench::registration reg =
    gpubench::pair<transfer_state>("pinned_transfers",
                                   "Host<->device copies: pageable cudaMemcpy vs pinned cudaMemcpyAsync")
        .explain("The GPU's copy engines can only DMA from memory the OS will not move, so a copy from ordinary "
                 "(pageable) memory is staged by the driver: the CPU copies each chunk into a pinned bounce buffer "
                 "and the DMA follows, and the two halves only partly overlap. Allocating the host buffer "
                 "page-locked (cudaMallocHost) lets the copy engine read or write it directly at the link's full "
                 "rate, and cudaMemcpyAsync on a stream lets the copy overlap other work. The same bytes move in "
                 "both variants; timed on the host from the call to completion.")
        .label_axis("dir", {"h2d", "d2h"})
        .axis("size_mib", {1, 16, 256, 1024})
        .work([](const size_point& z) {
          return gpubench::work{.bytes = double(z["size_mib"]) * 1048576.0, .path = gpubench::bytes_path::pcie};
        })
        .variant("baseline", "cudaMemcpy from/to pageable memory (malloc'd)", pageable_copy)
        .variant("optimized", "cudaMemcpyAsync from/to pinned memory (cudaMallocHost)", pinned_copy)
        .check(gpubench::tolerance::exact())
        .timing(gpubench::timing_method::host_wall);

}  // namespace
