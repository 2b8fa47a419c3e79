/// Unit tests for gpubench/host_parallel.hpp: split copies and fills must equal memcpy/memset,
/// including sizes that are not a multiple of the page or of the thread count.
#include "gpubench/host_parallel.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

TEST(HostParallel, SmallBuffersStayOnOneThread) {
  EXPECT_EQ(gpubench::parallel_threads(0), 1u);
  EXPECT_EQ(gpubench::parallel_threads((std::size_t(64) << 20) - 1), 1u);
  EXPECT_LE(gpubench::parallel_threads(std::size_t(1) << 30), 8u);
  EXPECT_GE(gpubench::parallel_threads(std::size_t(1) << 30), 1u);
}

TEST(HostParallel, CopyAndFillMatchMemcpyAndMemsetAtAwkwardSizes) {
  // 64 MiB + 12345 bytes: split over threads (where the machine has several), with a ragged tail.
  const std::size_t n = (std::size_t(64) << 20) + 12345;
  std::vector<std::uint8_t> src(n), dst(n, 0);
  for (std::size_t i = 0; i < n; ++i) src[i] = static_cast<std::uint8_t>((i * 2654435761u) >> 13);
  gpubench::parallel_copy(dst.data(), src.data(), n);
  EXPECT_EQ(dst, src);
  gpubench::parallel_fill(dst.data(), 0xAB, n);
  for (const std::size_t i : {std::size_t(0), n / 3, n / 2, n - 4097, n - 1}) EXPECT_EQ(dst[i], 0xAB) << i;
  std::size_t wrong = 0;
  for (const auto b : dst) wrong += b != 0xAB;
  EXPECT_EQ(wrong, 0u);
  // Small and empty buffers.
  std::vector<std::uint8_t> a{1, 2, 3}, b(3);
  gpubench::parallel_copy(b.data(), a.data(), 3);
  EXPECT_EQ(a, b);
  gpubench::parallel_copy(nullptr, nullptr, 0);
  gpubench::parallel_fill(nullptr, 0, 0);
}

}  // namespace
