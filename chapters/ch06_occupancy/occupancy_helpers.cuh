#pragma once
// What chapter 6's pairs share: launch plans made once per configuration in a State's
// constructor (occupancy queries are host calls, kept out of every timed sample), persistent
// grids capped at a chosen number of resident blocks per SM, and the dependent FMA chain that
// makes a kernel latency-bound.
#include <string>
#include <string_view>
#include <unordered_map>

#include "gpubench/cuda.hpp"
#include "gpubench/tuning.hpp"

namespace ch06 {

/// How one configuration launches: grid, block, dynamic shared memory, and its launch facts.
struct launch_plan {
  unsigned grid = 0;
  int threads = 0;
  std::size_t shared = 0;
  gpubench::launch_facts facts;
};

/// A persistent grid whose residency is capped at `blocks` blocks of `threads` per SM, by giving
/// each block just enough dynamic shared memory (gpubench::residency_cap_bytes). The grid is
/// exactly what fits at once (resident blocks × SMs), so every SM holds the same number of blocks
/// for the whole kernel and the resident warps per SM are the configuration's, not a wave
/// pattern's. The occupancy calculator's answer is what the facts report: on a GPU with other
/// limits (fewer threads or blocks per SM) it may be below `blocks`.
template <class... Args>
launch_plan capped_persistent(void (*kernel)(Args...), int threads, int blocks) {
  launch_plan p;
  p.threads = threads;
  p.shared = gpubench::residency_cap_bytes(kernel, threads, blocks);
  const int resident = gpubench::blocks_per_sm(kernel, threads, p.shared);
  if (resident < 1)
    throw gpubench::not_supported("a block of " + std::to_string(threads) + " threads with " + std::to_string(p.shared) +
                                  " B of shared memory does not fit on an SM");
  p.grid = static_cast<unsigned>(resident * gpubench::sm_count());
  p.facts = gpubench::kernel_facts(kernel, threads, p.shared, p.grid);
  return p;
}

/// A persistent grid at the kernel's own maximum residency (no cap): as many blocks as fit.
template <class... Args>
launch_plan full_persistent(void (*kernel)(Args...), int threads) {
  launch_plan p;
  p.threads = threads;
  const int resident = gpubench::blocks_per_sm(kernel, threads, 0);
  if (resident < 1)
    throw gpubench::not_supported("a block of " + std::to_string(threads) + " threads does not fit on an SM");
  p.grid = static_cast<unsigned>(resident * gpubench::sm_count());
  p.facts = gpubench::kernel_facts(kernel, threads, 0, p.grid);
  return p;
}

/// The residency sweep of the two occupancy pairs: block size b × resident blocks per SM k, kept
/// where b·k threads fit the 2048 an SM of sm_80/sm_90 holds (more could never be resident). Warps
/// per SM run from 1 (b32_k1) to 64 (every b·k = 2048), each reached by several block sizes, so
/// the sweep separates "how many warps" from "how big a block".
inline gpubench::tuning_grid residency_grid() {
  return gpubench::tuning_grid()
      .param("b", "threads per block", {32, 64, 128, 256, 512, 1024})
      .param("k", "resident blocks per SM", {1, 2, 4, 8, 16, 32})
      .only("b*k <= 2048", [](const gpubench::tuning_config& c) { return c["b"] * c["k"] <= 2048; });
}

/// Plans by variant name: a tuning pair's State builds one per configuration of its grid.
using plan_table = std::unordered_map<std::string, launch_plan>;

inline gpubench::launch_facts facts_of(const plan_table& plans, std::string_view variant) {
  const auto it = plans.find(std::string(variant));
  return it == plans.end() ? gpubench::launch_facts{} : it->second.facts;
}

// The dependent chain v <- a*v + b. a = 1 - 2^-10 and b = 2^-11 are exact in float; the chain
// contracts towards 0.5 by (1 - 2^-10) per step, so after 1024 steps an input has kept e^-1 of its
// distance from 0.5: every output still depends on its input (a stub writing a constant fails
// verification) and stays finite. Each step is one FFMA whose input is the previous step's
// output, so a thread issues one of them per FMA latency unless other warps (occupancy) or other
// chains (ILP) fill the gaps.
constexpr float kChainA = 1.0f - 1.0f / 1024;
constexpr float kChainB = 1.0f / 2048;

template <int Steps>
__device__ __forceinline__ float fma_chain(float v) {
  // Unrolled by 128: the loop's own counter, compare and branch cost 3 issue slots per 128 FFMAs
  // (2%), where unrolling by 32 would cost 9%.
#pragma unroll 128
  for (int s = 0; s < Steps; ++s) v = __fmaf_rn(v, kChainA, kChainB);
  return v;
}

}  // namespace ch06
