#pragma once
/// A cache of released memory blocks for reuse by a later allocation of the same size, in the
/// manner of PyTorch's caching host allocator. The engine routes page-locked host memory through
/// one (lib/src/cuda/pinned_cache.cpp): pinning 1 GiB took 1.1–1.5 s on the H100 VMs we
/// measure on, and chapter 1's pinned_transfers pinned the same sizes again for each direction and
/// each round, most of `run --chapter 1`'s setup time (docs/measurement.md, "Rounds"). CUDA-free:
/// the allocator is two functions, so it is tested on the CPU.
#include <cstddef>
#include <functional>
#include <list>
#include <map>
#include <mutex>

namespace gpubench {

class block_cache {
 public:
  /// `allocate` returns nullptr when memory is exhausted (and throws for any other failure);
  /// `release` frees a block for good. Idle blocks beyond `max_idle_bytes` are released, oldest first.
  block_cache(std::function<void*(std::size_t)> allocate, std::function<void(void*)> release, std::size_t max_idle_bytes);
  ~block_cache();  ///< releases the idle blocks; blocks still in use stay with their owners
  block_cache(const block_cache&) = delete;
  block_cache& operator=(const block_cache&) = delete;

  /// An idle block of exactly `bytes` made under `key` (the CUDA device), else a new one. When the
  /// allocator is out of memory, every idle block is released and it is asked once more; nullptr
  /// if it still has none.
  void* take(std::size_t bytes, int key);
  /// Hands `p` back. Returns false, doing nothing, when `p` did not come from take().
  bool give_back(void* p);
  /// Releases every idle block.
  void trim();

  [[nodiscard]] std::size_t idle_bytes() const;
  [[nodiscard]] std::size_t live_blocks() const;

 private:
  struct block {
    void* ptr;
    std::size_t bytes;
    int key;
  };
  void release_oldest_until(std::size_t max_idle);  // caller holds mutex_

  std::function<void*(std::size_t)> allocate_;
  std::function<void(void*)> release_;
  std::size_t max_idle_;
  mutable std::mutex mutex_;
  std::map<void*, block> live_;
  std::list<block> idle_;  // oldest first
  std::size_t idle_bytes_ = 0;
};

}  // namespace gpubench
