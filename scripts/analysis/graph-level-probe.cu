// Whether a CUDA graph replay's level is a property of where its kernel's module was placed or of
// its context, and whether anything within one process draws it again.
//
// The kernel is chapter 1's cuda_graphs step (chapters/ch01_foundations/cuda_graphs.cu). The probe
// times a 1000-node graph of it (host wall, launch to synchronize, median of 31 replays) four ways:
//   rt     the kernel as the runtime registers it, three fresh graphs;
//   mod i  a copy loaded with cuModuleLoadData from this file's cubin, after a device spacer of
//          0-63 blocks of 2 MiB (kept, so every copy lands elsewhere), two fresh graphs each;
//   ctx j  a fresh context made with cuCtxCreate, the runtime kernel in it, two fresh graphs,
//          each destroyed before the next is made;
//   pool   the primary context, then four contexts alive at once, each visited twice in turn: the
//          runtime kernel's graph (us) and a 4 MiB copy after a 256 MiB read flush (events, ns).
// With LOCK=path the processes take turns at timing (flock), so that several can be started at once
// as gpubench ab starts its workers, and still time alone.
//
// Build (from the repository root):
//   nvcc -O2 -std=c++17 -arch=sm_90 -o /tmp/graph-level-probe scripts/analysis/graph-level-probe.cu -lcuda
//   nvcc -cubin -arch=sm_90 -o /tmp/graph-level-probe.cubin scripts/analysis/graph-level-probe.cu
// Run: /tmp/graph-level-probe /tmp/graph-level-probe.cubin SEED
#include <cuda.h>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

constexpr int kThreads = 256;
constexpr int kKernels = 1000;

extern "C" __global__ void step(const float* __restrict__ in, float* __restrict__ out, float b) {
  out[threadIdx.x] = 0.75f * in[threadIdx.x] + b;
}

#define RT(x) check_rt((x), #x, __LINE__)
#define DRV(x) check_drv((x), #x, __LINE__)
static void check_rt(cudaError_t e, const char* what, int line) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "line %d: %s: %s\n", line, what, cudaGetErrorString(e));
    std::exit(1);
  }
}
static void check_drv(CUresult e, const char* what, int line) {
  if (e != CUDA_SUCCESS) {
    const char* s = nullptr;
    cuGetErrorString(e, &s);
    std::fprintf(stderr, "line %d: %s: %s\n", line, what, s ? s : "?");
    std::exit(1);
  }
}

struct buffers {
  float *in = nullptr, *ping = nullptr, *pong = nullptr;
  buffers() {
    RT(cudaMalloc(&in, kThreads * sizeof(float)));
    RT(cudaMalloc(&ping, kThreads * sizeof(float)));
    RT(cudaMalloc(&pong, kThreads * sizeof(float)));
    RT(cudaMemset(in, 0, kThreads * sizeof(float)));
  }
};

// Step k of the chain reads the pristine input first, then ping and pong in turn, as the pair does.
static const float* chain_in(const buffers& b, int k) { return k == 0 ? b.in : (k % 2 == 1 ? b.ping : b.pong); }
static float* chain_out(const buffers& b, int k) { return k % 2 == 0 ? b.ping : b.pong; }

// The chain captured as one graph; `launch(k)` enqueues step k, through the runtime or a module's function.
template <class Launch>
static cudaGraphExec_t capture(cudaStream_t s, Launch launch) {
  cudaGraph_t g;
  RT(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int k = 0; k < kKernels; ++k) launch(k);
  RT(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t e;
  RT(cudaGraphInstantiate(&e, g, 0));
  RT(cudaGraphDestroy(g));
  return e;
}

static double replay_median_us(cudaGraphExec_t e, cudaStream_t s) {
  for (int i = 0; i < 5; ++i) RT(cudaGraphLaunch(e, s));
  RT(cudaStreamSynchronize(s));
  std::vector<double> t;
  for (int i = 0; i < 31; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    RT(cudaGraphLaunch(e, s));
    RT(cudaStreamSynchronize(s));
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(t.begin(), t.begin() + 15, t.end());
  return t[15];
}

static double time_function(CUfunction f, cudaStream_t s, const buffers& b) {
  const auto e = capture(s, [&](int k) {
    const float* in = chain_in(b, k);
    float* out = chain_out(b, k);
    float off = 0.01f * float(k % 13);
    void* args[] = {&in, &out, &off};
    DRV(cuLaunchKernel(f, 1, 1, 1, kThreads, 1, 1, 0, reinterpret_cast<CUstream>(s), args, nullptr));
  });
  const double us = replay_median_us(e, s);
  RT(cudaGraphExecDestroy(e));
  return us;
}

// A copy of 4 MiB, a few microseconds, after a read of 256 MiB that leaves the L2 cold.
__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
__global__ void read_flush(const float4* __restrict__ in, int n, float* sink) {
  float acc = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += in[i].x;
  if (acc == 12345.f) *sink = acc;
}

struct flush_buffers {
  static constexpr int kFlush = (256 << 20) / 16, kCopy = (4 << 20) / 16;
  float4 *flush = nullptr, *in = nullptr, *out = nullptr;
  float* sink = nullptr;
  cudaEvent_t a, z;
  flush_buffers() {
    RT(cudaMalloc(&flush, sizeof(float4) * kFlush));
    RT(cudaMemset(flush, 0, sizeof(float4) * kFlush));
    RT(cudaMalloc(&in, sizeof(float4) * kCopy));
    RT(cudaMemset(in, 0, sizeof(float4) * kCopy));
    RT(cudaMalloc(&out, sizeof(float4) * kCopy));
    RT(cudaMalloc(&sink, sizeof(float)));
    RT(cudaEventCreate(&a));
    RT(cudaEventCreate(&z));
  }
};

static CUcontext make_context(CUdevice dev) {
  CUcontext c;
#if CUDA_VERSION >= 13000
  DRV(cuCtxCreate(&c, nullptr, 0, dev));
#else
  DRV(cuCtxCreate(&c, 0, dev));
#endif
  DRV(cuCtxSetCurrent(c));
  return c;
}

// The chain graph of the runtime's step kernel, in the current context.
static double time_runtime(cudaStream_t s, const buffers& b) {
  const auto e =
      capture(s, [&](int k) { step<<<1, kThreads, 0, s>>>(chain_in(b, k), chain_out(b, k), 0.01f * float(k % 13)); });
  const double us = replay_median_us(e, s);
  RT(cudaGraphExecDestroy(e));
  return us;
}

static double copy_median_ns(cudaStream_t s, const flush_buffers& f) {
  std::vector<double> t;
  for (int i = 0; i < 36; ++i) {
    read_flush<<<1024, 256, 0, s>>>(f.flush, flush_buffers::kFlush, f.sink);
    RT(cudaEventRecord(f.a, s));
    copy_kernel<<<(flush_buffers::kCopy + 255) / 256, 256, 0, s>>>(f.in, f.out, flush_buffers::kCopy);
    RT(cudaEventRecord(f.z, s));
    RT(cudaEventSynchronize(f.z));
    float ms = 0;
    RT(cudaEventElapsedTime(&ms, f.a, f.z));
    if (i >= 5) t.push_back(ms * 1e6);
  }
  std::nth_element(t.begin(), t.begin() + 15, t.end());
  return t[15];
}

static std::string levels(cudaStream_t s, const buffers& b, const flush_buffers& f) {
  char num[48];
  std::snprintf(num, sizeof num, "%.0f/%.0f", time_runtime(s, b), copy_median_ns(s, f));
  return num;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CUBIN SEED\n", argv[0]);
    return 2;
  }
  std::ifstream f(argv[1], std::ios::binary);
  const std::vector<char> image((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (image.empty()) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  std::mt19937 rng(std::stoul(argv[2]));
  RT(cudaSetDevice(0));
  RT(cudaFree(nullptr));
  cudaStream_t s;
  RT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  buffers b;
  flush_buffers flush;
  // The first use loads the runtime's module, at the same time as the other processes if started together.
  step<<<1, kThreads, 0, s>>>(b.in, b.ping, 0.f);
  RT(cudaStreamSynchronize(s));

  int lock = -1;
  if (const char* p = std::getenv("LOCK")) {
    lock = open(p, O_CREAT | O_RDWR, 0644);
    flock(lock, LOCK_EX);
  }
  std::string line = "pid " + std::to_string(getpid()) + " rt";
  char num[64];
  for (int i = 0; i < 3; ++i) {
    std::snprintf(num, sizeof num, " %.0f", time_runtime(s, b));
    line += num;
  }
  line += " | mod";
  std::vector<void*> spacers;
  std::vector<CUmodule> modules;
  for (int i = 0; i < 16; ++i) {
    void* sp = nullptr;
    const std::size_t blocks = rng() % 64;
    if (blocks) RT(cudaMalloc(&sp, blocks << 21));
    spacers.push_back(sp);
    CUmodule m;
    DRV(cuModuleLoadData(&m, image.data()));
    modules.push_back(m);
    CUfunction fn;
    DRV(cuModuleGetFunction(&fn, m, "step"));
    std::snprintf(num, sizeof num, " %.0f/%.0f", time_function(fn, s, b), time_function(fn, s, b));
    line += num;
  }
  line += " | ctx";
  CUdevice dev;
  DRV(cuDeviceGet(&dev, 0));
  CUcontext primary;
  DRV(cuCtxGetCurrent(&primary));
  // Fresh contexts one after another, each destroyed before the next is made.
  for (int j = 0; j < 3; ++j) {
    CUcontext c = make_context(dev);
    cudaStream_t cs;
    RT(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    buffers cb;
    std::snprintf(num, sizeof num, " %.0f/%.0f", time_runtime(cs, cb), time_runtime(cs, cb));
    line += num;
    DRV(cuCtxSetCurrent(primary));
    DRV(cuCtxDestroy(c));
  }
  // A pool of contexts alive at once, each visited twice in turn: the graph replay (us) and the
  // short copy after a flush (ns), in the primary context first.
  line += " | pool graph/copy: primary " + levels(s, b, flush);
  struct member {
    CUcontext c;
    cudaStream_t s;
    buffers* b;
    flush_buffers* f;
  };
  std::vector<member> pool;  // its contexts and buffers live until the process exits
  std::size_t free_before = 0, free_after = 0, total = 0;
  RT(cudaMemGetInfo(&free_before, &total));
  for (int j = 0; j < 4; ++j) {
    member m{make_context(dev), nullptr, nullptr, nullptr};
    RT(cudaStreamCreateWithFlags(&m.s, cudaStreamNonBlocking));
    m.b = new buffers;
    m.f = new flush_buffers;
    pool.push_back(m);
  }
  DRV(cuCtxSetCurrent(primary));
  RT(cudaMemGetInfo(&free_after, &total));
  // Each member holds 264 MiB of buffers (the flush and the copy's two) besides the context itself.
  std::snprintf(num, sizeof num, " (device memory %.0f MiB a member)",
                double(free_before - free_after) / 4 / (1 << 20));
  line += num;
  for (int visit = 0; visit < 2; ++visit)
    for (std::size_t j = 0; j < pool.size(); ++j) {
      DRV(cuCtxSetCurrent(pool[j].c));
      line += " c" + std::to_string(j) + " " + levels(pool[j].s, *pool[j].b, *pool[j].f);
    }
  DRV(cuCtxSetCurrent(primary));
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  if (lock >= 0) flock(lock, LOCK_UN);
  return 0;
}
