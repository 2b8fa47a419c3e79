// See gpubench/block_cache.hpp.
#include "gpubench/block_cache.hpp"

#include <utility>

namespace gpubench {

block_cache::block_cache(std::function<void*(std::size_t)> allocate, std::function<void(void*)> release,
                         std::size_t max_idle_bytes)
    : allocate_(std::move(allocate)), release_(std::move(release)), max_idle_(max_idle_bytes) {}

block_cache::~block_cache() { trim(); }

void* block_cache::take(std::size_t bytes, int key) {
  std::lock_guard lock(mutex_);
  for (auto it = idle_.begin(); it != idle_.end(); ++it) {
    if (it->bytes != bytes || it->key != key) continue;
    const block b = *it;
    idle_.erase(it);
    idle_bytes_ -= b.bytes;
    live_.emplace(b.ptr, b);
    return b.ptr;
  }
  void* p = allocate_(bytes);
  if (p == nullptr && !idle_.empty()) {  // out of memory: what we keep idle may be what is missing
    release_oldest_until(0);
    p = allocate_(bytes);
  }
  if (p != nullptr) live_.emplace(p, block{p, bytes, key});
  return p;
}

bool block_cache::give_back(void* p) {
  std::lock_guard lock(mutex_);
  const auto it = live_.find(p);
  if (it == live_.end()) return false;
  idle_.push_back(it->second);
  idle_bytes_ += it->second.bytes;
  live_.erase(it);
  release_oldest_until(max_idle_);
  return true;
}

void block_cache::trim() {
  std::lock_guard lock(mutex_);
  release_oldest_until(0);
}

std::size_t block_cache::idle_bytes() const {
  std::lock_guard lock(mutex_);
  return idle_bytes_;
}

std::size_t block_cache::live_blocks() const {
  std::lock_guard lock(mutex_);
  return live_.size();
}

void block_cache::release_oldest_until(std::size_t max_idle) {
  while (idle_bytes_ > max_idle && !idle_.empty()) {
    const block b = idle_.front();
    idle_.pop_front();
    idle_bytes_ -= b.bytes;
    release_(b.ptr);
  }
}

}  // namespace gpubench
