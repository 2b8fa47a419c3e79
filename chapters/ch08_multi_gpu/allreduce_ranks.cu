// All-reduce (sum) with one process per GPU, as NCCL runs in training jobs: each rank reduces to
// rank 0 and rank 0 broadcasts the sum (ncclReduce + ncclBroadcast), vs ncclAllReduce. Built only
// with NCCL and MPI; without them `gpubench list` shows the pair as absent with the reason.
#if defined(GPUBENCH_HAVE_NCCL) && defined(GPUBENCH_HAVE_MPI)
#include "nccl_helpers.cuh"

namespace {

using gpubench::size_point;

// Whole floats: --axis bytes=10 means 2 floats, and the work model counts the same.
std::size_t floats_of(const size_point& z) { return std::max<std::size_t>(1, std::size_t(z["bytes"]) / sizeof(float)); }

struct rank_allreduce_state : gpubench::pair_state {
  ncclComm_t comm;
  std::size_t count;
  gpubench::device_buffer<float> in, out;

  rank_allreduce_state(const size_point& z, const gpubench::setup_context& ctx)
      : comm(ch08::rank_comm(*ranks_of(ctx))), count(floats_of(z)), in(count), out(count) {
    // Each rank its own inputs; dyadic, so every algorithm's sum is exact (fill_dyadic).
    ch08::fill_dyadic(in.get(), count, gpubench::derive_seed(ctx.seed, 1 + std::uint64_t(ctx.ranks->rank())),
                      ctx.stream);
  }
  static gpubench::rank_group* ranks_of(const gpubench::setup_context& ctx) {
    if (ctx.ranks == nullptr || ctx.ranks->size() < 2)
      throw gpubench::not_supported("runs one process per GPU, at least two: mpirun -np 2 gpubench collective");
    return ctx.ranks;
  }
  gpubench::output_view output(std::string_view) const override { return {out.get(), count}; }
};

// Everything through rank 0: every rank's buffer is summed into rank 0's (ncclReduce), then rank 0
// sends the sum to every rank (ncclBroadcast). Rank 0's links carry the whole buffer twice.
void reduce_broadcast(rank_allreduce_state& s, gpubench::stream_t stream) {
  CH08_NCCL(ncclReduce(s.in.get(), s.out.get(), s.count, ncclFloat, ncclSum, 0, s.comm, stream));
  CH08_NCCL(ncclBroadcast(s.out.get(), s.out.get(), s.count, ncclFloat, 0, s.comm, stream));
}

// The ring all-reduce: a reduce-scatter then an all-gather, every rank sending and receiving
// 2(n-1)/n of the buffer, all links busy at once.
void nccl(rank_allreduce_state& s, gpubench::stream_t stream) {
  CH08_NCCL(ncclAllReduce(s.in.get(), s.out.get(), s.count, ncclFloat, ncclSum, s.comm, stream));
}

const gpubench::registration reg =
    gpubench::pair<rank_allreduce_state>(
        "allreduce_ranks", "All-reduce, one process per GPU: reduce to rank 0 + broadcast vs ncclAllReduce")
        .explain("Training jobs run NCCL with one process per GPU, launched by mpirun or srun; this is "
                 "ch08/allreduce in that form. Every process owns one GPU and one communicator, bootstrapped with "
                 "ncclGetUniqueId on rank 0 broadcast over MPI. The baseline funnels the sum through rank 0: "
                 "ncclReduce into rank 0, then ncclBroadcast from it, so rank 0's links carry the whole buffer twice "
                 "while the others idle. ncclAllReduce runs the ring (or tree) over every link at once. The GB/s "
                 "column is nccl-tests' busbw: the buffer's bytes x 2(n-1)/n over the time, so it is comparable "
                 "with all_reduce_perf run the same way (`mpirun -np 2 all_reduce_perf -g 1`). A sample is timed as "
                 "nccl-tests times one: a barrier, then each rank's span, and the slowest rank's is the sample. "
                 "Inputs are multiples of 2^-12, so the sum is exact in any order and every rank's result must equal "
                 "its baseline's bit for bit (docs/fleet.md, \"Collectives, one process per GPU\").")
        .axis("bytes", {8, 65536, 16777216, 1073741824})
        .work([](const size_point& z) {
          return gpubench::work{.bytes = ch08::allreduce_bus_bytes(double(floats_of(z) * sizeof(float)), z["ranks"]),
                                .path = gpubench::bytes_path::peer_duplex};
        })
        .variant("reduce_broadcast", "ncclReduce to rank 0, then ncclBroadcast from it", reduce_broadcast)
        .variant("nccl", "ncclAllReduce (ring or tree: every link busy)", nccl)
        .check(gpubench::tolerance::exact())
        .one_process_per_gpu();

}  // namespace
#endif  // GPUBENCH_HAVE_NCCL && GPUBENCH_HAVE_MPI
