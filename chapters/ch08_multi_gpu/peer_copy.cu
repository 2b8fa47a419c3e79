// A copy from one GPU's memory into another's: staged through pinned host memory (what a program
// without peer access must do) vs cudaMemcpyPeerAsync with peer access enabled vs a copy kernel
// whose stores go straight into the other GPU's memory. Needs no NCCL, so it is always built.
#include <array>
#include <memory>
#include <string>

#include "multi_gpu_helpers.cuh"

namespace {

using gpubench::size_point;

// Staging is pipelined in chunks, so the source GPU's device-to-host copy of chunk c+1 overlaps the
// destination's host-to-device copy of chunk c: the fair version of the path without peer access
// (one chunk's fill and drain cost ~1/8 of the total), not a strawman that waits for the whole buffer.
constexpr int kStageChunks = 8;
constexpr int kCopyThreads = 256;
// peer_memcpy_split: each direction's copy cut into this many pieces, one stream each, so the
// driver may put the pieces on different copy engines of the source GPU.
constexpr int kLanes = 4;

// The SM copy: 16-byte loads from local memory, 16-byte stores into the peer's memory through its
// device pointer (peer access maps it), a grid of enough blocks to keep every SM's store queue full.
__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

struct peer_copy_state : gpubench::pair_state {
  ch08::gpu_pair g;
  std::size_t count;  // floats per direction
  bool forward, backward;  // run -> peer, peer -> run
  ch08::gpu_buffer<float> src_run, dst_run, src_peer, dst_peer;
  ch08::portable_pinned_buffer<float> stage_fwd, stage_bwd;
  // One stream per direction and GPU: a GPU's device-to-host and host-to-device copies run on
  // different copy engines only from different streams. The engine's stream is the run GPU's
  // sending stream; the others are forked from it by the barrier and joined back.
  ch08::device_stream run_recv, peer_send, peer_recv;
  ch08::sync_event barrier, run_recv_done, peer_send_done, peer_recv_done;
  std::array<ch08::sync_event*, kStageChunks> fwd_staged{}, bwd_staged{};
  std::array<std::unique_ptr<ch08::sync_event>, 2 * kStageChunks> staged_events;
  // peer_memcpy_split's extra streams on each GPU (lane 0 is the engine's stream on the run's GPU and
  // peer_send on the peer), and the events that join them back.
  std::array<std::unique_ptr<ch08::device_stream>, kLanes - 1> run_lanes, peer_lanes;
  std::array<std::unique_ptr<ch08::sync_event>, kLanes - 1> run_lane_done, peer_lane_done;
  ch08::l2_flusher peer_flush;
  int run_sms = 0, peer_sms = 0;

  peer_copy_state(const size_point& z, const gpubench::setup_context& ctx)
      : g(ch08::two_gpus()),
        count(std::size_t(z["size_mib"]) << 18),
        forward(z.label("direction") != "from_peer"),
        backward(z.label("direction") != "to_peer"),
        run_recv(g.run), peer_send(g.peer), peer_recv(g.peer),
        barrier(g.run), run_recv_done(g.run), peer_send_done(g.peer), peer_recv_done(g.peer),
        peer_flush(g.peer) {
    if (!ch08::enable_peer_access(g.run, g.peer) || !ch08::enable_peer_access(g.peer, g.run))
      throw gpubench::not_supported("needs peer access between GPU " + std::to_string(g.run) + " and GPU " +
                                    std::to_string(g.peer) + " (cudaDeviceCanAccessPeer is 0; `gpubench device` shows the link)");
    for (int c = 0; c < kStageChunks; ++c) {
      staged_events[c] = std::make_unique<ch08::sync_event>(g.run);                  // recorded on the run GPU's send stream
      staged_events[kStageChunks + c] = std::make_unique<ch08::sync_event>(g.peer);  // on the peer's send stream
      fwd_staged[c] = staged_events[c].get();
      bwd_staged[c] = staged_events[kStageChunks + c].get();
    }
    for (int l = 0; l < kLanes - 1; ++l) {
      run_lanes[l] = std::make_unique<ch08::device_stream>(g.run);
      peer_lanes[l] = std::make_unique<ch08::device_stream>(g.peer);
      run_lane_done[l] = std::make_unique<ch08::sync_event>(g.run);
      peer_lane_done[l] = std::make_unique<ch08::sync_event>(g.peer);
    }
    GPUBENCH_CUDA(cudaDeviceGetAttribute(&run_sms, cudaDevAttrMultiProcessorCount, g.run));
    GPUBENCH_CUDA(cudaDeviceGetAttribute(&peer_sms, cudaDevAttrMultiProcessorCount, g.peer));
    if (forward) {
      src_run = ch08::buffer_on<float>(g.run, count);
      dst_peer = ch08::buffer_on<float>(g.peer, count);
      stage_fwd = ch08::portable_pinned_buffer<float>(count);
      gpubench::fill_uniform(src_run.get(), count, gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    }
    if (backward) {
      src_peer = ch08::buffer_on<float>(g.peer, count);
      dst_run = ch08::buffer_on<float>(g.run, count);
      stage_bwd = ch08::portable_pinned_buffer<float>(count);
      const gpubench::device_guard on(g.peer);
      gpubench::fill_uniform(src_peer.get(), count, gpubench::derive_seed(ctx.seed, 2), -1.f, 1.f, peer_send.get());
    }
    GPUBENCH_CUDA(cudaStreamSynchronize(peer_send.get()));  // the engine synchronizes only its own stream
  }

  // to_peer: the peer's copy; from_peer: the run GPU's; both: the run GPU's, then the peer's.
  gpubench::output_view output(std::string_view) const override {
    return backward ? gpubench::output_view{dst_run.get(), count} : gpubench::output_view{dst_peer.get(), count};
  }
  std::vector<gpubench::output_view> extra_outputs(std::string_view) const override {
    if (forward && backward) return {{dst_peer.get(), count}};
    return {};
  }
  void flush_other_gpus(gpubench::stream_t engine) override { peer_flush.flush(peer_send.get(), engine); }

  /// Opens the sample: the barrier on every stream the variants may use.
  void open(cudaStream_t engine) { ch08::barrier(engine, barrier, run_recv.get(), peer_send.get(), peer_recv.get()); }
  /// Closes it: the engine's stream (and so its stop event) waits for every other stream.
  void close(cudaStream_t engine) {
    ch08::join(engine, run_recv.get(), run_recv_done);
    ch08::join(engine, peer_send.get(), peer_send_done);
    ch08::join(engine, peer_recv.get(), peer_recv_done);
  }
};

std::size_t bytes_of(std::size_t n) { return n * sizeof(float); }

// Device -> pinned host on the sending GPU's stream, chunk by chunk; the receiving GPU's stream
// waits for each chunk and copies it host -> device, so both copy engines (and both PCIe links)
// work at once.
void stage(const float* src, float* stage, float* dst, std::size_t count, cudaStream_t send, cudaStream_t recv,
           const std::array<ch08::sync_event*, kStageChunks>& staged) {
  const std::size_t chunk = (count + kStageChunks - 1) / kStageChunks;
  for (int c = 0; c < kStageChunks; ++c) {
    const std::size_t first = std::min(count, std::size_t(c) * chunk), n = std::min(chunk, count - first);
    if (n == 0) continue;
    GPUBENCH_CUDA(cudaMemcpyAsync(stage + first, src + first, bytes_of(n), cudaMemcpyDeviceToHost, send));
    ch08::order_after(recv, send, *staged[c]);
    GPUBENCH_CUDA(cudaMemcpyAsync(dst + first, stage + first, bytes_of(n), cudaMemcpyHostToDevice, recv));
  }
}

void staged(peer_copy_state& s, gpubench::stream_t engine) {
  s.open(engine);
  if (s.forward) stage(s.src_run.get(), s.stage_fwd.get(), s.dst_peer.get(), s.count, engine, s.peer_recv.get(), s.fwd_staged);
  if (s.backward) stage(s.src_peer.get(), s.stage_bwd.get(), s.dst_run.get(), s.count, s.peer_send.get(), s.run_recv.get(), s.bwd_staged);
  s.close(engine);
}

// Each direction's copy is issued on its source GPU's stream: that GPU's copy engine pushes the
// bytes over the link into the other GPU's memory.
void peer_memcpy(peer_copy_state& s, gpubench::stream_t engine) {
  s.open(engine);
  if (s.forward)
    GPUBENCH_CUDA(cudaMemcpyPeerAsync(s.dst_peer.get(), s.g.peer, s.src_run.get(), s.g.run, bytes_of(s.count), engine));
  if (s.backward)
    GPUBENCH_CUDA(cudaMemcpyPeerAsync(s.dst_run.get(), s.g.run, s.src_peer.get(), s.g.peer, bytes_of(s.count), s.peer_send.get()));
  s.close(engine);
}

// One direction's copy in kLanes pieces: piece 0 on `first` (a stream already inside the sample),
// the others on `lanes`, which wait for the sample's barrier and are joined back into `engine`.
void split_copy(float* dst, int dst_dev, const float* src, int src_dev, std::size_t count, cudaStream_t first,
                const std::array<std::unique_ptr<ch08::device_stream>, kLanes - 1>& lanes,
                const std::array<std::unique_ptr<ch08::sync_event>, kLanes - 1>& done, const ch08::sync_event& barrier,
                cudaStream_t engine) {
  const std::size_t piece = (count + kLanes - 1) / kLanes;
  for (int l = 0; l < kLanes; ++l) {
    const std::size_t at = std::min(count, std::size_t(l) * piece), n = std::min(piece, count - at);
    const cudaStream_t st = l == 0 ? first : lanes[l - 1]->get();
    if (l > 0) GPUBENCH_CUDA(cudaStreamWaitEvent(st, barrier.get(), 0));
    if (n > 0) GPUBENCH_CUDA(cudaMemcpyPeerAsync(dst + at, dst_dev, src + at, src_dev, bytes_of(n), st));
    if (l > 0) ch08::join(engine, st, *done[l - 1]);
  }
}

void peer_memcpy_split(peer_copy_state& s, gpubench::stream_t engine) {
  s.open(engine);  // records s.barrier on the engine's stream: the lanes wait for that record
  if (s.forward)
    split_copy(s.dst_peer.get(), s.g.peer, s.src_run.get(), s.g.run, s.count, engine, s.run_lanes, s.run_lane_done,
               s.barrier, engine);
  if (s.backward)
    split_copy(s.dst_run.get(), s.g.run, s.src_peer.get(), s.g.peer, s.count, s.peer_send.get(), s.peer_lanes,
               s.peer_lane_done, s.barrier, engine);
  s.close(engine);
}

// Each direction's copy in two halves: the source GPU's copy engine pushes the first (a copy issued
// on a stream of the source), the destination's pulls the second (issued on a stream of the
// destination: that GPU's engine reads over the link). Two GPUs' engines on one direction.
void peer_memcpy_push_pull(peer_copy_state& s, gpubench::stream_t engine) {
  s.open(engine);
  const std::size_t half = s.count / 2;  // a whole number of MiB: even
  if (s.forward) {
    GPUBENCH_CUDA(cudaMemcpyPeerAsync(s.dst_peer.get(), s.g.peer, s.src_run.get(), s.g.run, bytes_of(half), engine));
    GPUBENCH_CUDA(cudaMemcpyPeerAsync(s.dst_peer.get() + half, s.g.peer, s.src_run.get() + half, s.g.run,
                                      bytes_of(s.count - half), s.peer_recv.get()));
  }
  if (s.backward) {
    GPUBENCH_CUDA(cudaMemcpyPeerAsync(s.dst_run.get(), s.g.run, s.src_peer.get(), s.g.peer, bytes_of(half), s.peer_send.get()));
    GPUBENCH_CUDA(cudaMemcpyPeerAsync(s.dst_run.get() + half, s.g.run, s.src_peer.get() + half, s.g.peer,
                                      bytes_of(s.count - half), s.run_recv.get()));
  }
  s.close(engine);
}

void launch_copy(const float* src, float* dst, std::size_t count, int sms, cudaStream_t stream) {
  // count is a whole number of MiB, so a multiple of 4 floats (16 bytes).
  copy_kernel<<<unsigned(sms) * (2048 / kCopyThreads), kCopyThreads, 0, stream>>>(
      reinterpret_cast<const uint4*>(src), reinterpret_cast<uint4*>(dst), count / 4);
  GPUBENCH_CHECK_LAUNCH();
}

void peer_kernel(peer_copy_state& s, gpubench::stream_t engine) {
  s.open(engine);
  if (s.forward) launch_copy(s.src_run.get(), s.dst_peer.get(), s.count, s.run_sms, engine);
  if (s.backward) {
    const gpubench::device_guard on(s.g.peer);  // a kernel launches on the current device's stream only
    launch_copy(s.src_peer.get(), s.dst_run.get(), s.count, s.peer_sms, s.peer_send.get());
  }
  s.close(engine);
}

const gpubench::registration reg =
    gpubench::pair<peer_copy_state>("peer_copy", "GPU to GPU copy: staged through pinned host memory vs peer copies")
        .explain("Two GPUs of one host can move data between their memories without the host: with peer access enabled "
                 "(cudaDeviceEnablePeerAccess, both ways), cudaMemcpyPeerAsync has the source GPU's copy engine write "
                 "straight into the other GPU's memory over NVLink, or over PCIe peer-to-peer where there is no "
                 "NVLink. Without it, a program copies device -> pinned host -> device: each byte crosses PCIe twice "
                 "and the link between the GPUs is never used. The staged baseline is the fair version of that path: 8 "
                 "chunks, so one GPU's device-to-host copy of the next chunk overlaps the other's host-to-device copy "
                 "of the last. peer_memcpy_split cuts each direction's copy into 4 pieces on 4 streams, so the driver "
                 "may spread them over more copy engines: it shows whether one cudaMemcpyPeerAsync already fills the "
                 "link; peer_memcpy_push_pull has the source's copy engine push half and the destination's pull the "
                 "other half, two GPUs' engines on one direction. peer_kernel does the copy with the SMs instead of a "
                 "copy engine: a kernel on the source GPU stores 16-byte words into the peer's memory through its "
                 "pointer. Every size runs each direction alone (to_peer: from the run's device, --device, into the "
                 "next GPU; from_peer: back) and both at once; the GPUs are always the run's device and the next one. "
                 "GB/s counts the bytes that arrive in one direction (for `both`, each direction carries the size at "
                 "once). The floor is the size over the link's theoretical rate per direction, which NVML gives "
                 "(NVLink links x per-link rate: 18 x 25 GB/s = 450 GB/s between two H200s; `gpubench device` shows "
                 "it): NVLink is full duplex, so `both` has the same floor as one direction. Timing: a barrier event "
                 "on the engine's stream opens every sample and every other stream waits for it; each stream's end is "
                 "joined back, so the engine's events span from the barrier to the slowest GPU's last byte. Both GPUs' "
                 "L2 are flushed before each sample.")
        .axis("size_mib", {1, 16, 256, 1024})
        .label_axis("direction", {"to_peer", "from_peer", "both"})
        .work([](const size_point& z) {
          const double bytes = double(z["size_mib"]) * 1048576.0;
          return gpubench::work{.bytes = bytes, .path = z.label("direction") == "both" ? gpubench::bytes_path::peer_duplex
                                                                                    : gpubench::bytes_path::peer};
        })
        .variant("staged", "device -> pinned host -> device in 8 pipelined chunks (no peer access used)", staged)
        .variant("peer_memcpy", "cudaMemcpyPeerAsync with peer access: the copy engine writes into the peer",
                 peer_memcpy)
        .variant("peer_memcpy_split", "the same copy in 4 pieces on 4 streams of the source GPU (more copy engines)",
                 peer_memcpy_split)
        .variant("peer_memcpy_push_pull",
                 "half pushed by the source GPU's copy engine, half pulled by the destination's", peer_memcpy_push_pull)
        .variant("peer_kernel", "a copy kernel on the source GPU storing into the peer's memory", peer_kernel)
        .check(gpubench::tolerance::exact());

}  // namespace
