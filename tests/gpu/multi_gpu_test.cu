// Chapter 8 on a machine with two or more GPUs, beyond what gpu_pairs checks for every pair:
// a result that lives on both GPUs is the same on both (each GPU's copy of an all-reduce, every
// variant), the engine sees it on both, and a variant hands the engine back its own device.
// Skipped on a machine with fewer than two GPUs (gpu_pairs then checks the pairs are skipped).
#include <gtest/gtest.h>

#include <cstring>

#include "gpubench/cuda.hpp"
#include "gpubench/registry.hpp"
#include "gpubench/result_regions.hpp"

namespace gpubench {
namespace {

int gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

std::vector<std::byte> read_region(const output_view& r) {
  std::vector<std::byte> out(r.count * size_of(r.type));
  cudaPointerAttributes attr{};
  GPUBENCH_CUDA(cudaPointerGetAttributes(&attr, r.data));
  const device_guard on(attr.device);
  GPUBENCH_CUDA(cudaMemcpy(out.data(), r.data, out.size(), cudaMemcpyDeviceToHost));
  return out;
}

TEST(multi_gpu, one_gpu_machines_skip_chapter_8_with_the_reason) {
  if (gpus() >= 2) GTEST_SKIP() << "this machine has two GPUs";
  for (const auto* p : registry::global().select(8, {})) {
    SCOPED_TRACE(p->id());
    GPUBENCH_CUDA(cudaSetDevice(0));
    try {
      (void)p->setup(expand(smallest_sizes(p->axes)).front(), {});
      ADD_FAILURE() << "built a State on one GPU";
    } catch (const not_supported& e) {
      EXPECT_NE(std::string(e.what()).find("needs 2 GPUs"), std::string::npos) << e.what();
    }
  }
}

TEST(multi_gpu, every_gpu_holds_the_same_all_reduced_result) {
  if (gpus() < 2) GTEST_SKIP() << "needs 2 GPUs";
  for (const auto* p : registry::global().select(8, {})) {
    if (p->name == "peer_copy") continue;  // two different copies, not one result twice
    SCOPED_TRACE(p->id());
    GPUBENCH_CUDA(cudaSetDevice(0));
    cuda_stream stream;
    const size_point z = expand(smallest_sizes(p->axes)).front();
    auto state = p->setup(z, {stream.get(), 42});
    for (const auto& v : p->variants) {
      SCOPED_TRACE(v.name);
      const auto regions = result_regions(*state, v.name);
      ASSERT_EQ(regions.size(), 2u);
      v.run(*state, stream.get());
      GPUBENCH_CUDA(cudaGetLastError());
      GPUBENCH_CUDA(cudaStreamSynchronize(stream.get()));  // the join makes this wait for both GPUs
      int current = -1;
      GPUBENCH_CUDA(cudaGetDevice(&current));
      EXPECT_EQ(current, 0) << "the variant left another device current";
      const auto run = read_region(regions[0]);
      const auto peer = read_region(regions[1]);
      ASSERT_EQ(run.size(), peer.size());
      EXPECT_EQ(std::memcmp(run.data(), peer.data(), run.size()), 0) << "the two GPUs hold different sums";
    }
  }
}

}  // namespace
}  // namespace gpubench
