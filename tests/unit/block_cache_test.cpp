/// Unit tests for gpubench/block_cache.hpp: the reuse cache behind the engine's pinned memory.
/// The allocator is a fake that hands out addresses from a counter and records every release.
#include "gpubench/block_cache.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace {

struct fake_allocator {
  std::uintptr_t next = 0x1000;
  std::size_t capacity = ~std::size_t(0);  // bytes it can hand out at once
  std::size_t in_use = 0;
  int allocations = 0;
  std::vector<void*> released;
  std::vector<std::size_t> sizes;  // by allocation order, to give in_use back

  gpubench::block_cache make(std::size_t max_idle) {
    return gpubench::block_cache(
        [this](std::size_t bytes) -> void* {
          if (bytes > capacity - in_use) return nullptr;
          in_use += bytes;
          ++allocations;
          next += 0x1000;
          sizes.push_back(bytes);
          return reinterpret_cast<void*>(next + (sizes.size() - 1));
        },
        [this](void* p) {
          released.push_back(p);
          in_use -= sizes[reinterpret_cast<std::uintptr_t>(p) - (reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t(0xfff))];
        },
        max_idle);
  }
};

TEST(BlockCache, ABlockGivenBackIsReusedForTheSameSizeAndKey) {
  fake_allocator a;
  auto cache = a.make(1 << 20);
  void* p = cache.take(4096, 0);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(cache.give_back(p));
  EXPECT_EQ(cache.idle_bytes(), 4096u);
  EXPECT_EQ(cache.take(4096, 0), p);
  EXPECT_EQ(a.allocations, 1);
  EXPECT_EQ(cache.idle_bytes(), 0u);
  EXPECT_TRUE(a.released.empty());
}

TEST(BlockCache, AnotherSizeOrKeyGetsANewBlock) {
  fake_allocator a;
  auto cache = a.make(1 << 20);
  void* p = cache.take(4096, 0);
  cache.give_back(p);
  void* q = cache.take(8192, 0);  // larger: not carved from the idle block
  void* r = cache.take(4096, 1);  // another device
  EXPECT_NE(q, p);
  EXPECT_NE(r, p);
  EXPECT_EQ(a.allocations, 3);
  EXPECT_EQ(cache.live_blocks(), 2u);
}

TEST(BlockCache, IdleBytesAboveTheCapAreReleasedOldestFirst) {
  fake_allocator a;
  auto cache = a.make(10000);
  void* p1 = cache.take(4000, 0);
  void* p2 = cache.take(4000, 0);
  void* p3 = cache.take(4000, 0);
  cache.give_back(p1);
  cache.give_back(p2);
  EXPECT_TRUE(a.released.empty());
  cache.give_back(p3);  // 12000 idle > 10000: the oldest goes
  ASSERT_EQ(a.released.size(), 1u);
  EXPECT_EQ(a.released[0], p1);
  EXPECT_EQ(cache.idle_bytes(), 8000u);
}

TEST(BlockCache, ABlockLargerThanTheCapIsReleasedAtOnce) {
  fake_allocator a;
  auto cache = a.make(1000);
  void* p = cache.take(4096, 0);
  cache.give_back(p);
  ASSERT_EQ(a.released.size(), 1u);
  EXPECT_EQ(a.released[0], p);
  EXPECT_EQ(cache.idle_bytes(), 0u);
}

TEST(BlockCache, OutOfMemoryReleasesIdleBlocksAndAsksAgain) {
  fake_allocator a;
  a.capacity = 10000;
  auto cache = a.make(1 << 20);
  void* p = cache.take(6000, 0);
  cache.give_back(p);  // idle, still counted by the allocator
  void* q = cache.take(8000, 0);  // 6000 + 8000 > 10000: only after releasing p
  ASSERT_NE(q, nullptr);
  ASSERT_EQ(a.released.size(), 1u);
  EXPECT_EQ(a.released[0], p);
  EXPECT_EQ(cache.take(20000, 0), nullptr) << "more than the allocator has: nullptr, not a throw";
}

TEST(BlockCache, UnknownPointersAreNotTaken) {
  fake_allocator a;
  auto cache = a.make(1 << 20);
  int x = 0;
  EXPECT_FALSE(cache.give_back(&x));
  void* p = cache.take(64, 0);
  EXPECT_TRUE(cache.give_back(p));
  EXPECT_FALSE(cache.give_back(p)) << "given back twice";
}

TEST(BlockCache, TrimAndDestructionReleaseIdleBlocksOnly) {
  fake_allocator a;
  {
    auto cache = a.make(1 << 20);
    void* idle = cache.take(64, 0);
    void* live = cache.take(128, 0);
    cache.give_back(idle);
    cache.trim();
    ASSERT_EQ(a.released.size(), 1u);
    EXPECT_EQ(a.released[0], idle);
    void* idle2 = cache.take(256, 0);
    cache.give_back(idle2);
    (void)live;
  }
  EXPECT_EQ(a.released.size(), 2u) << "the destructor releases the idle block, not the live one";
}

TEST(BlockCache, AnAllocatorThatThrowsPassesTheErrorOn) {
  gpubench::block_cache cache([](std::size_t) -> void* { throw std::runtime_error("driver gone"); }, [](void*) {}, 0);
  EXPECT_THROW(cache.take(64, 0), std::runtime_error);
  EXPECT_EQ(cache.live_blocks(), 0u);
}

}  // namespace
