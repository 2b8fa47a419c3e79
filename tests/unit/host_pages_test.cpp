/// Unit tests for gpubench/host_pages.hpp: once switched on, a large host buffer that one state
/// frees is not handed to the next on the same pages.
#include "gpubench/host_pages.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace {

// Volatile accesses, so that the compiler keeps every allocation, write and read below.
void write_pattern(void* p, std::size_t n, unsigned char value) {
  auto* b = static_cast<volatile unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) b[i] = value;
}

std::size_t count_of(const void* p, std::size_t from, std::size_t to, unsigned char value) {
  const auto* b = static_cast<const volatile unsigned char*>(p);
  std::size_t n = 0;
  for (std::size_t i = from; i < to; ++i) n += b[i] == value;
  return n;
}

TEST(host_pages, a_freed_large_buffer_is_not_handed_to_the_next_on_its_pages) {
  if (!gpubench::draw_host_pages_per_buffer())
    GTEST_SKIP() << "this allocator has no threshold to fix (AddressSanitizer's, or not glibc's): "
                    "buffers keep its own placement";
  // Without the switch, freeing this 2 MiB mapping raises glibc's threshold past 1 MiB, and the two
  // 1 MiB buffers below come from the heap, the second on the pages of the first.
  constexpr std::size_t big = std::size_t{2} << 20, n = std::size_t{1} << 20;
  void* first_state = std::malloc(big);
  ASSERT_NE(first_state, nullptr);
  write_pattern(first_state, big, 0x11);
  std::free(first_state);

  void* buffer = std::malloc(n);
  ASSERT_NE(buffer, nullptr);
  write_pattern(buffer, n, 0xA5);
  std::free(buffer);
  void* next = std::malloc(n);
  ASSERT_NE(next, nullptr);
  // A buffer on fresh pages reads as zeros; one on the freed buffer's pages keeps its bytes (all
  // but the allocator's few bytes of bookkeeping at the start, left out here).
  const std::size_t kept = count_of(next, 4096, n, 0xA5);
  std::free(next);
  EXPECT_EQ(kept, 0u);
}

}  // namespace
