// The regions of a variant's result (gpubench/result_regions.hpp): output() first, then the
// extra regions of a result that lives on several GPUs, one element type for all. No GPU: the
// views only carry pointers, nothing here dereferences them.
#include "gpubench/result_regions.hpp"

#include <gtest/gtest.h>

#include <string>

#include "gpubench/error.hpp"

namespace {

using gpubench::element_type;
using gpubench::memory_space;
using gpubench::output_view;

float run_gpu[4], peer_gpu[4];  // stand-ins for two GPUs' copies of one result
double other_type[4];

class one_region : public gpubench::pair_state {
 public:
  [[nodiscard]] output_view output(std::string_view) const override { return {run_gpu, 4}; }
};

class two_gpus : public gpubench::pair_state {
 public:
  explicit two_gpus(bool mismatched = false) : mismatched_(mismatched) {}
  [[nodiscard]] output_view output(std::string_view) const override { return {run_gpu, 4}; }
  [[nodiscard]] std::vector<output_view> extra_outputs(std::string_view variant) const override {
    if (mismatched_) return {{other_type, 4, element_type::f64}};
    if (variant == "host_too") return {{peer_gpu, 4}, {peer_gpu, 2, element_type::f32, memory_space::host}};
    return {{peer_gpu, 4}};
  }

 private:
  bool mismatched_;
};

TEST(ResultRegions, SingleGpuPairsHaveOneRegion) {
  const one_region s;
  const auto r = gpubench::result_regions(s, "baseline");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].data, run_gpu);
  EXPECT_EQ(gpubench::result_bytes(r), 16u);
}

TEST(ResultRegions, ExtraRegionsFollowTheOutputInOrder) {
  const two_gpus s;
  auto r = gpubench::result_regions(s, "nccl");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].data, run_gpu);
  EXPECT_EQ(r[1].data, peer_gpu);
  EXPECT_EQ(gpubench::result_bytes(r), 32u);
  r = gpubench::result_regions(s, "host_too");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[2].where, memory_space::host);
  EXPECT_EQ(gpubench::result_bytes(r), 40u);
}

TEST(ResultRegions, MixedElementTypesAreAPairBug) {
  const two_gpus s(true);
  try {
    (void)gpubench::result_regions(s, "nccl");
    FAIL() << "expected an error";
  } catch (const gpubench::error& e) {
    EXPECT_EQ(e.code(), gpubench::exit_code::runtime_failure);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("f64"), std::string::npos) << msg;
    EXPECT_NE(msg.find("one element type"), std::string::npos) << msg;
  }
}

}  // namespace
