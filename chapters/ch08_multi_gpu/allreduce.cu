// All-reduce (sum) of one float buffer per GPU over two GPUs: a hand-written reduce to one GPU and
// broadcast over peer copies vs ncclAllReduce. Built only with NCCL; without it `gpubench list`
// shows the pair as absent with the reason (absent_pairs.cpp).
#ifdef GPUBENCH_HAVE_NCCL
#include <string>

#include "nccl_helpers.cuh"

namespace {

using gpubench::size_point;

constexpr int kThreads = 256;

// out = a + b, one correctly rounded addition per element. Float addition is commutative in IEEE
// 754, and with two GPUs every algorithm (ring, tree, NCCL's protocols) adds each pair of
// elements exactly once, so every GPU's NCCL result equals this bit for bit: the check is exact.
__global__ void add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * kThreads)
    out[i] = __fadd_rn(a[i], b[i]);
}

// Whole floats: --axis bytes=10 means 2 floats (8 bytes), and the work model counts the same.
std::size_t floats_of(const size_point& z) { return std::max<std::size_t>(1, std::size_t(z["bytes"]) / sizeof(float)); }

struct allreduce_state : gpubench::pair_state {
  ch08::gpu_pair g;
  std::size_t count;
  ch08::gpu_buffer<float> in_run, out_run, recv_run, in_peer, out_peer;
  ch08::device_stream peer_stream;
  ch08::sync_event barrier, received, peer_done;
  ch08::l2_flusher peer_flush;
  int run_sms = 0;
  ch08::nccl_comms comms;  // last: destroyed first, before the buffers it may have registered

  allreduce_state(const size_point& z, const gpubench::setup_context& ctx)
      : g(ch08::two_gpus()),
        count(floats_of(z)),
        in_run(ch08::buffer_on<float>(g.run, count)), out_run(ch08::buffer_on<float>(g.run, count)),
        recv_run(ch08::buffer_on<float>(g.run, count)),
        in_peer(ch08::buffer_on<float>(g.peer, count)), out_peer(ch08::buffer_on<float>(g.peer, count)),
        peer_stream(g.peer), barrier(g.run), received(g.peer), peer_done(g.peer), peer_flush(g.peer), comms(g) {
    // Peer access where the GPUs have it: the hand-written copies then go GPU to GPU (without it
    // cudaMemcpyPeerAsync still works, staged by the driver). NCCL decides its own transport.
    ch08::enable_peer_access(g.run, g.peer);
    ch08::enable_peer_access(g.peer, g.run);
    GPUBENCH_CUDA(cudaDeviceGetAttribute(&run_sms, cudaDevAttrMultiProcessorCount, g.run));
    gpubench::fill_uniform(in_run.get(), count, gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    {
      const gpubench::device_guard on(g.peer);
      gpubench::fill_uniform(in_peer.get(), count, gpubench::derive_seed(ctx.seed, 2), -1.f, 1.f, peer_stream.get());
    }
    GPUBENCH_CUDA(cudaStreamSynchronize(peer_stream.get()));
  }

  // The sum on the run's GPU, then on the peer: both must equal the baseline's.
  gpubench::output_view output(std::string_view) const override { return {out_run.get(), count}; }
  std::vector<gpubench::output_view> extra_outputs(std::string_view) const override { return {{out_peer.get(), count}}; }
  void flush_other_gpus(gpubench::stream_t engine) override { peer_flush.flush(peer_stream.get(), engine); }
};

std::size_t bytes_of(const allreduce_state& s) { return s.count * sizeof(float); }

// Reduce to the run's GPU, then broadcast: the peer's copy engine pushes its buffer into a receive
// buffer on the run's GPU, the run's GPU adds, and its copy engine pushes the sum back. Two full
// transfers, one direction at a time, with the add between them; the link's other direction idles.
void reduce_broadcast(allreduce_state& s, gpubench::stream_t engine) {
  ch08::barrier(engine, s.barrier, s.peer_stream.get());
  GPUBENCH_CUDA(cudaMemcpyPeerAsync(s.recv_run.get(), s.g.run, s.in_peer.get(), s.g.peer, bytes_of(s), s.peer_stream.get()));
  ch08::order_after(engine, s.peer_stream.get(), s.received);
  const auto blocks = unsigned(std::min<std::size_t>((s.count + kThreads - 1) / kThreads, std::size_t(s.run_sms) * 8));
  add_kernel<<<blocks, kThreads, 0, engine>>>(s.in_run.get(), s.recv_run.get(), s.out_run.get(), s.count);
  GPUBENCH_CHECK_LAUNCH();
  GPUBENCH_CUDA(cudaMemcpyPeerAsync(s.out_peer.get(), s.g.peer, s.out_run.get(), s.g.run, bytes_of(s), engine));
  ch08::join(engine, s.peer_stream.get(), s.peer_done);
}

// NCCL: with two GPUs, each sends half of its buffer and receives the other half (reduce-scatter),
// adds, and exchanges the sums (all-gather), using both directions of the link at once and
// pipelining in small chunks; at small sizes its low-latency protocols send flags with the data.
void nccl(allreduce_state& s, gpubench::stream_t engine) {
  ch08::barrier(engine, s.barrier, s.peer_stream.get());
  ch08::all_reduce_pair(s.comms, s.in_run.get(), s.out_run.get(), engine, s.in_peer.get(), s.out_peer.get(),
                        s.peer_stream.get(), s.count, s.g.run);
  ch08::join(engine, s.peer_stream.get(), s.peer_done);
}

const gpubench::registration reg =
    gpubench::pair<allreduce_state>("allreduce",
                                    "All-reduce over 2 GPUs: reduce + broadcast over peer copies vs ncclAllReduce")
        .explain("Data-parallel training sums every gradient over the GPUs after each step: an all-reduce. The "
                 "hand-written baseline reduces to one GPU and broadcasts: the peer's buffer is copied over the link "
                 "into the run's GPU, added there, and the sum copied back, so every byte crosses twice, one direction "
                 "at a time. ncclAllReduce splits the buffer: each GPU sends half and receives half (reduce-scatter), "
                 "adds, and the sums cross back (all-gather), so both directions of the link carry S/2 at once, in "
                 "pipelined chunks; small messages go through NCCL's low-latency protocols. One process drives both "
                 "GPUs from one thread (ncclCommInitAll and ncclGroupStart/End, as nccl-tests' -g 2 does), so the "
                 "engine times and verifies it like any pair. The figures are nccl-tests' own: GB/s is algbw = S / "
                 "time (S = the buffer's bytes, `bytes`, rounded down to whole floats), and busbw = algbw x 2(n-1)/n, "
                 "which for n = 2 GPUs is algbw itself, so the one GB/s column is both. Each direction of the link "
                 "carries S (S/2 in each phase), so the floor is S over the link's theoretical rate per direction "
                 "(NVML), and % of floor is busbw over that rate; scripts/analysis/nccl-tests-compare.sh "
                 "sets it beside all_reduce_perf's. The result on both GPUs must equal the hand-written sum bit for "
                 "bit: with two GPUs each element is one float addition, which is commutative. NVLink multicast "
                 "(NVLS) is kept off: NCCL_NVLS_ENABLE=0 is set for the process unless the user set it. The GPUs are "
                 "the run's device and the next; a barrier opens every sample on both, the slowest GPU's end closes "
                 "it, and both GPUs' L2 are flushed before each sample (docs/chapters.md, \"Chapter 8\").")
        .axis("bytes", {8, 65536, 16777216, 1073741824})
        .work([](const size_point& z) {
          // With two GPUs each direction of the link carries S: S/2 in the reduce-scatter, S/2 in the
          // all-gather. So the floor is S over the per-direction rate, and % of floor is busbw over it.
          return gpubench::work{.bytes = double(floats_of(z) * sizeof(float)), .path = gpubench::bytes_path::peer_duplex};
        })
        .variant("reduce_broadcast", "peer copy to the run's GPU, add, peer copy back", reduce_broadcast)
        .variant("nccl", "ncclAllReduce on both GPUs in one group (ring: reduce-scatter + all-gather)", nccl)
        .check(gpubench::tolerance::exact());

}  // namespace
#endif  // GPUBENCH_HAVE_NCCL
