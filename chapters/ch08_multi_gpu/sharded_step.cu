// A data-parallel optimizer step with one process per GPU: all-reduce the gradients and update
// every parameter on every rank, vs reduce-scatter the gradients, update this rank's shard, and
// all-gather the parameters (ZeRO's partitioned optimizer: Rajbhandari et al., "ZeRO: Memory
// Optimizations Toward Training Trillion Parameter Models", SC 2020). Built only with NCCL and MPI.
#if defined(GPUBENCH_HAVE_NCCL) && defined(GPUBENCH_HAVE_MPI)
#include "nccl_helpers.cuh"

namespace {

using gpubench::size_point;

constexpr int kThreads = 256;
constexpr float kBeta = 0.875f;      // momentum, 7/8
constexpr float kRate = 0.0078125f;  // learning rate, 2^-7

// SGD with momentum, out of place (so every run starts from the same state): m' = beta m + g,
// p' = p - rate m'. One rounding per fma, the same in both variants, element by element.
__global__ void momentum_step(const float* __restrict__ p, const float* __restrict__ m, const float* __restrict__ g,
                              float* __restrict__ p_out, float* __restrict__ m_out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * kThreads) {
    const float m_next = __fmaf_rn(kBeta, m[i], g[i]);
    m_out[i] = m_next;
    p_out[i] = __fmaf_rn(-kRate, m_next, p[i]);
  }
}

void step(const float* p, const float* m, const float* g, float* p_out, float* m_out, std::size_t n, cudaStream_t s) {
  const auto blocks = unsigned(std::min<std::size_t>((n + kThreads - 1) / kThreads, 65535));
  momentum_step<<<blocks, kThreads, 0, s>>>(p, m, g, p_out, m_out, n);
  GPUBENCH_CHECK_LAUNCH();
}

struct sharded_state : gpubench::pair_state {
  ncclComm_t comm;
  int rank, ranks;
  std::size_t count, shard;  // parameters (a multiple of ranks), and one rank's share of them
  gpubench::device_buffer<float> params, momentum, grad, grad_sum, grad_shard, params_out, momentum_out;

  sharded_state(const size_point& z, const gpubench::setup_context& ctx)
      : comm(ch08::rank_comm(*ranks_of(ctx))),
        rank(ctx.ranks->rank()),
        ranks(ctx.ranks->size()),
        count(std::max<std::size_t>(std::size_t(z["bytes"]) / sizeof(float) / std::size_t(ranks), 1) *
              std::size_t(ranks)),
        shard(count / std::size_t(ranks)),
        params(count),
        momentum(count),
        grad(count),
        grad_sum(count),
        grad_shard(shard),
        params_out(count),
        momentum_out(count) {
    // The model and the optimizer state are replicated: the same on every rank. The gradients are
    // each rank's own, dyadic so that their sum is exact in any order (fill_dyadic).
    gpubench::fill_uniform(params.get(), count, gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    gpubench::fill_uniform(momentum.get(), count, gpubench::derive_seed(ctx.seed, 2), -1.f, 1.f, ctx.stream);
    ch08::fill_dyadic(grad.get(), count, gpubench::derive_seed(ctx.seed, 10 + std::uint64_t(rank)), ctx.stream);
  }
  static gpubench::rank_group* ranks_of(const gpubench::setup_context& ctx) {
    if (ctx.ranks == nullptr || ctx.ranks->size() < 2)
      throw gpubench::not_supported("runs one process per GPU, at least two: mpirun -np 2 gpubench collective");
    return ctx.ranks;
  }
  // The updated parameters, on every rank.
  gpubench::output_view output(std::string_view) const override { return {params_out.get(), count}; }
};

// Every rank receives the whole summed gradient and updates every parameter: the same update on
// every GPU, n times over.
void allreduce_full(sharded_state& s, gpubench::stream_t stream) {
  CH08_NCCL(ncclAllReduce(s.grad.get(), s.grad_sum.get(), s.count, ncclFloat, ncclSum, s.comm, stream));
  step(s.params.get(), s.momentum.get(), s.grad_sum.get(), s.params_out.get(), s.momentum_out.get(), s.count, stream);
}

// The all-reduce split in its two halves with the update between them: each rank receives only
// its shard of the summed gradient (ncclReduceScatter), updates that shard, and the shards of the
// parameters are gathered back on every rank (ncclAllGather, in place). The same bytes cross the
// links; the update does 1/n of the work.
void reduce_scatter_shard(sharded_state& s, gpubench::stream_t stream) {
  const std::size_t off = std::size_t(s.rank) * s.shard;
  CH08_NCCL(ncclReduceScatter(s.grad.get(), s.grad_shard.get(), s.shard, ncclFloat, ncclSum, s.comm, stream));
  step(s.params.get() + off, s.momentum.get() + off, s.grad_shard.get(), s.params_out.get() + off,
       s.momentum_out.get() + off, s.shard, stream);
  CH08_NCCL(ncclAllGather(s.params_out.get() + off, s.params_out.get(), s.shard, ncclFloat, s.comm, stream));
}

const gpubench::registration reg =
    gpubench::pair<sharded_state>("sharded_step",
                                  "Optimizer step, one process per GPU: all-reduce + full update vs reduce-scatter, "
                                  "shard update, all-gather")
        .explain("A data-parallel step ends with the optimizer: every rank holds the same parameters and momentum, "
                 "each has its own gradient, and all must end with the same updated parameters. The baseline "
                 "all-reduces the gradients and applies the SGD-with-momentum update to every parameter on every "
                 "rank, so the update's memory traffic (read p, m and g, write p and m: 20 bytes a parameter) is "
                 "done n times. The ring all-reduce is a reduce-scatter followed by an all-gather; splitting it there "
                 "lets each rank update only its 1/n shard between the halves and gather the updated parameters, as "
                 "ZeRO's partitioned optimizer does (Rajbhandari et al., SC 2020). The collectives move the same "
                 "bytes, 2(n-1)/n of the parameters per rank, so the GB/s column is that bus traffic over the step's "
                 "time; the gain is the update done once instead of n times. Gradients are multiples of 2^-12, so "
                 "the summed gradient is exact in either order and every rank's parameters must equal the baseline's "
                 "bit for bit. Timed as nccl-tests times collectives: a barrier, then the slowest rank's span.")
        .axis("bytes", {16777216, 268435456, 1073741824})
        .work([](const size_point& z) {
          const auto ranks = std::size_t(std::max<std::int64_t>(z["ranks"], 1));
          const std::size_t count = std::max<std::size_t>(std::size_t(z["bytes"]) / sizeof(float) / ranks, 1) * ranks;
          return gpubench::work{.bytes = ch08::allreduce_bus_bytes(double(count * sizeof(float)), z["ranks"]),
                                .path = gpubench::bytes_path::peer_duplex};
        })
        .variant("allreduce_full", "ncclAllReduce of the gradients, then the update of every parameter", allreduce_full)
        .variant("reduce_scatter_shard", "ncclReduceScatter, the update of this rank's shard, ncclAllGather",
                 reduce_scatter_shard)
        .check(gpubench::tolerance::exact())
        .one_process_per_gpu();

}  // namespace
#endif  // GPUBENCH_HAVE_NCCL && GPUBENCH_HAVE_MPI
