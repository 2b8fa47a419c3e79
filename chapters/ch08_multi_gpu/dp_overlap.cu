// One data-parallel step on 2 GPUs: each GPU computes its gradient buckets, and each bucket is
// summed over the GPUs with ncclAllReduce. Serial (every all-reduce after all the compute) vs
// bucketed (bucket b's all-reduce on a communication stream while bucket b+1 computes). Built only
// with NCCL; without it `gpubench list` shows the pair as absent with the reason.
#ifdef GPUBENCH_HAVE_NCCL
#include <memory>
#include <vector>

#include "nccl_helpers.cuh"

namespace {

using gpubench::size_point;

constexpr int kThreads = 256;

// The stand-in for a bucket's backward GEMMs: a dependent FMA chain per element from this GPU's
// input (as chapter 4's pipeline). Its FLOPs are exact, so the floor is the compute alone at the
// FP32 peak; it gives the same bits in every variant, and with fma = 0 it is a plain copy, which
// makes that size's step nearly all communication. The constants keep values bounded.
__global__ void gradient_kernel(const float* __restrict__ x, float* __restrict__ grad, std::size_t n, int fma) {
  const std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x;
  if (i >= n) return;
  float y = x[i];
#pragma unroll 16
  for (int k = 0; k < fma; ++k) y = fmaf(y, 0.9990234375f, 0.0009765625f);  // y = (1 - 2^-10) y + 2^-10
  grad[i] = y;
}

void compute(const float* x, float* grad, std::size_t n, int fma, cudaStream_t stream) {
  gradient_kernel<<<unsigned((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, grad, n, fma);
  GPUBENCH_CHECK_LAUNCH();
}

struct overlap_state : gpubench::pair_state {
  ch08::gpu_pair g;
  int buckets, fma;
  std::size_t per_bucket;  // floats
  ch08::gpu_buffer<float> x_run, grad_run, x_peer, grad_peer;
  // Compute on the engine's stream (run GPU) and peer_compute; all-reduces on one communication
  // stream per GPU at the highest priority, so NCCL's blocks get SMs as soon as compute blocks
  // retire instead of queueing behind the next bucket's (what DDP's NCCL streams do too).
  ch08::device_stream peer_compute, comm_run, comm_peer;
  ch08::sync_event barrier, peer_compute_done, comm_run_done, comm_peer_done;
  std::vector<std::unique_ptr<ch08::sync_event>> computed_run, computed_peer;  // per bucket
  ch08::l2_flusher peer_flush;
  ch08::nccl_comms comms;

  overlap_state(const size_point& z, const gpubench::setup_context& ctx)
      : g(ch08::two_gpus()),
        buckets(int(z["buckets"])),
        fma(int(z["fma"])),
        per_bucket(std::size_t(z["bucket_mib"]) << 18),
        x_run(ch08::buffer_on<float>(g.run, total())), grad_run(ch08::buffer_on<float>(g.run, total())),
        x_peer(ch08::buffer_on<float>(g.peer, total())), grad_peer(ch08::buffer_on<float>(g.peer, total())),
        peer_compute(g.peer), comm_run(g.run, ch08::highest_priority(g.run)),
        comm_peer(g.peer, ch08::highest_priority(g.peer)),
        barrier(g.run), peer_compute_done(g.peer), comm_run_done(g.run), comm_peer_done(g.peer),
        peer_flush(g.peer), comms(g) {
    for (int b = 0; b < buckets; ++b) {
      computed_run.push_back(std::make_unique<ch08::sync_event>(g.run));
      computed_peer.push_back(std::make_unique<ch08::sync_event>(g.peer));
    }
    // Each GPU has its own shard of the batch, so its own inputs and gradients.
    gpubench::fill_uniform(x_run.get(), total(), gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    {
      const gpubench::device_guard on(g.peer);
      gpubench::fill_uniform(x_peer.get(), total(), gpubench::derive_seed(ctx.seed, 2), -1.f, 1.f, peer_compute.get());
    }
    GPUBENCH_CUDA(cudaStreamSynchronize(peer_compute.get()));
  }
  [[nodiscard]] std::size_t total() const { return std::size_t(buckets) * per_bucket; }

  // The summed gradients on the run's GPU, then on the peer.
  gpubench::output_view output(std::string_view) const override { return {grad_run.get(), total()}; }
  std::vector<gpubench::output_view> extra_outputs(std::string_view) const override { return {{grad_peer.get(), total()}}; }
  void flush_other_gpus(gpubench::stream_t engine) override { peer_flush.flush(peer_compute.get(), engine); }

  void compute_bucket(int b, cudaStream_t engine) {
    const std::size_t first = std::size_t(b) * per_bucket;
    compute(x_run.get() + first, grad_run.get() + first, per_bucket, fma, engine);
    const gpubench::device_guard on(g.peer);
    compute(x_peer.get() + first, grad_peer.get() + first, per_bucket, fma, peer_compute.get());
  }
  // In place: each GPU's bucket becomes the sum over both GPUs.
  void reduce_bucket(int b) {
    float* run = grad_run.get() + std::size_t(b) * per_bucket;
    float* peer = grad_peer.get() + std::size_t(b) * per_bucket;
    ch08::all_reduce_pair(comms, run, run, comm_run.get(), peer, peer, comm_peer.get(), per_bucket, g.run);
  }
  void open(cudaStream_t engine) {
    ch08::barrier(engine, barrier, peer_compute.get(), comm_run.get(), comm_peer.get());
  }
  void close(cudaStream_t engine) {
    ch08::join(engine, peer_compute.get(), peer_compute_done);
    ch08::join(engine, comm_run.get(), comm_run_done);
    ch08::join(engine, comm_peer.get(), comm_peer_done);
  }
};

// Backward first, then the gradients' all-reduces: the communication streams wait for the last
// bucket's compute, so the link idles while the SMs work and the SMs idle while the link works.
void serial(overlap_state& s, gpubench::stream_t engine) {
  s.open(engine);
  for (int b = 0; b < s.buckets; ++b) s.compute_bucket(b, engine);
  ch08::order_after(s.comm_run.get(), engine, *s.computed_run.back());
  ch08::order_after(s.comm_peer.get(), s.peer_compute.get(), *s.computed_peer.back());
  for (int b = 0; b < s.buckets; ++b) s.reduce_bucket(b);
  s.close(engine);
}

// The same kernels and all-reduces; only the dependencies differ: bucket b's all-reduce waits for
// bucket b's compute alone, so it crosses the link while bucket b+1 computes. What is left exposed
// is the last bucket's all-reduce (and the SMs NCCL's kernels take from the compute meanwhile).
void bucketed(overlap_state& s, gpubench::stream_t engine) {
  s.open(engine);
  for (int b = 0; b < s.buckets; ++b) {
    s.compute_bucket(b, engine);
    ch08::order_after(s.comm_run.get(), engine, *s.computed_run[b]);
    ch08::order_after(s.comm_peer.get(), s.peer_compute.get(), *s.computed_peer[b]);
    s.reduce_bucket(b);
  }
  s.close(engine);
}

const gpubench::registration reg =
    gpubench::pair<overlap_state>("dp_overlap",
                                  "A data-parallel step: all-reduce after all compute vs bucket by bucket, overlapped")
        .explain("Past one GPU, a training step is compute plus the all-reduce of its gradients, and the question is "
                 "whether the all-reduce hides behind the compute. Each of 2 GPUs computes `buckets` gradient buckets "
                 "of `bucket_mib` MiB (a chain of `fma` FP32 FMAs per element stands in for the backward GEMMs: its "
                 "time is known from the FP32 peak, and every variant gets the same bits), and each bucket is summed "
                 "over both GPUs in place with ncclAllReduce. serial issues the all-reduces after the last bucket's "
                 "compute, as a step without overlap does. bucketed, like PyTorch DDP's gradient buckets, starts "
                 "bucket b's all-reduce on a high-priority communication stream as soon as bucket b is computed, so "
                 "it crosses NVLink while bucket b+1 computes; what stays exposed is the last bucket's all-reduce and "
                 "the SMs NCCL's kernels take from the compute. The work model declares each GPU's FLOPs (FP32) and "
                 "the all-reduced bytes, which cross the link in each direction at once, so the floor is the longer "
                 "of one GPU's compute at the FP32 peak and the all-reduce at the link's theoretical rate: the ideal "
                 "step. The overlap efficiency, step time over max(compute, communication) as they run "
                 "here (1 when the overlap is perfect), comes from the run's own records: at fma=0 a bucket's "
                 "compute is a copy of 16 MiB (about 8 us on an H200), which bucketed hides under the all-reduces, "
                 "so bucketed at fma=0 is the communication alone (serial at fma=0 adds the 16 copies, about 10% "
                 "more), and serial at fma=F minus that is the compute at F. fma=0 also shows what bucketing gains "
                 "on a step that is nearly all communication: only the copies it hides. The "
                 "GPUs are the run's device and the next; a barrier opens every sample, the slowest GPU's end closes "
                 "it, and both GPUs' L2 are flushed before each sample.")
        .axis("fma", {0, 256, 512, 1024})
        .axis("buckets", {16})
        .axis("bucket_mib", {16})
        .work([](const size_point& z) {
          const double per_gpu = double(z["buckets"]) * double(z["bucket_mib"]) * 262144.0;  // elements
          return gpubench::work{.bytes = per_gpu * sizeof(float),
                                .flops = per_gpu * 2.0 * double(z["fma"]),
                                .path = gpubench::bytes_path::peer_duplex,
                                .items = double(z["buckets"]),
                                .item_name = "bucket"};
        })
        .variant("serial", "all buckets' compute, then every bucket's all-reduce", serial)
        .variant("bucketed", "each bucket's all-reduce on a comm stream, overlapping the next bucket's compute",
                 bucketed)
        .check(gpubench::tolerance::exact());

}  // namespace
#endif  // GPUBENCH_HAVE_NCCL
