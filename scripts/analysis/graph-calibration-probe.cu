// Where a calibration must be taken to predict a process's graph-replay level on cuda_graphs'
// records (chapters/ch01_foundations/cuda_graphs.cu). Each process times graphs of one-block
// kernels (host wall, launch to synchronize, median of 31 replays, in ns a node):
//   A100, A100k2  right after the context is made, on a fresh stream (two kernels of one module);
//   then a setup like a worker's runner: 160 streams, a 120 MiB device buffer, a pinned buffer;
//   B100          after it, on a fresh stream; P0 on the pool's first stream;
//   R100, R1000   four record-like rounds, each on a random pool stream behind a spacer of 0-126 MiB;
//   C100          at the end, on the fresh stream again.
// With LOCK=path the processes take turns at timing (flock), so that 16 can start at once, as
// `gpubench ab` starts its workers, and still time alone.
//
// Build: nvcc -O2 -std=c++17 -arch=sm_90 -o /tmp/graph-calibration-probe scripts/analysis/graph-calibration-probe.cu
// Run:   for i in $(seq 1 16); do LOCK=/tmp/lock /tmp/graph-calibration-probe $i & done; wait
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <random>
#include <string>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#define RT(x)                                                                            \
  do {                                                                                   \
    cudaError_t err_ = (x);                                                              \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "line %d: %s: %s\n", __LINE__, #x, cudaGetErrorString(err_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)
__global__ void step(const float* __restrict__ in, float* __restrict__ out, float b) {
  out[threadIdx.x] = 0.75f * in[threadIdx.x] + b;
}
__global__ void step2(const float* __restrict__ in, float* __restrict__ out, float b) {
  out[threadIdx.x] = 0.5f * in[threadIdx.x] + b;
}
template <class K>
double level(cudaStream_t s, int kernels, K kern) {
  float *in, *a, *b;
  RT(cudaMalloc(&in, 1024));
  RT(cudaMalloc(&a, 1024));
  RT(cudaMalloc(&b, 1024));
  RT(cudaMemsetAsync(in, 0, 1024, s));
  cudaGraph_t g;
  cudaGraphExec_t e;
  RT(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int k = 0; k < kernels; ++k)
    kern<<<1, 256, 0, s>>>(k == 0 ? in : (k % 2 ? a : b), k % 2 ? b : a, 0.01f * (k % 13));
  RT(cudaStreamEndCapture(s, &g));
  RT(cudaGraphInstantiate(&e, g, 0));
  RT(cudaGraphUpload(e, s));
  for (int i = 0; i < 5; ++i) RT(cudaGraphLaunch(e, s));
  RT(cudaStreamSynchronize(s));
  std::vector<double> t;
  for (int i = 0; i < 31; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    RT(cudaGraphLaunch(e, s));
    RT(cudaStreamSynchronize(s));
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / kernels);
  }
  RT(cudaGraphExecDestroy(e));
  RT(cudaGraphDestroy(g));
  RT(cudaFree(in));
  RT(cudaFree(a));
  RT(cudaFree(b));
  std::nth_element(t.begin(), t.begin() + 15, t.end());
  return t[15] * 1000;  // ns per node
}
int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SEED\n", argv[0]);
    return 2;
  }
  std::mt19937 rng(std::atoi(argv[1]));
  RT(cudaSetDevice(0));
  RT(cudaFree(nullptr));
  int lock = -1;
  if (const char* p = std::getenv("LOCK")) {
    lock = open(p, O_CREAT | O_RDWR, 0644);
  }
  auto take = [&] {
    if (lock >= 0) flock(lock, LOCK_EX);
  };
  auto give = [&] {
    if (lock >= 0) flock(lock, LOCK_UN);
  };
  std::string line;
  char num[64];
  auto put = [&](const char* tag, double v) {
    std::snprintf(num, sizeof num, " %s=%.1f", tag, v);
    line += num;
  };
  cudaStream_t fresh;
  RT(cudaStreamCreateWithFlags(&fresh, cudaStreamNonBlocking));
  take();
  put("A100", level(fresh, 100, step));     // before setup, fresh stream
  put("A100k2", level(fresh, 100, step2));  // another kernel of the same module
  give();
  RT(cudaStreamDestroy(fresh));
  // runner-like setup: 160 streams, a 2xL2 flush buffer, small probes, a pinned buffer
  std::vector<cudaStream_t> pool(160);
  for (auto& s : pool) RT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  void* flush;
  RT(cudaMalloc(&flush, 120u << 20));
  void* pr;
  RT(cudaMalloc(&pr, 16));
  void* ph;
  RT(cudaMallocHost(&ph, 16));
  take();
  cudaStream_t fresh2;
  RT(cudaStreamCreateWithFlags(&fresh2, cudaStreamNonBlocking));
  put("B100", level(fresh2, 100, step));  // after setup, fresh stream
  put("P0", level(pool[0], 100, step));   // after setup, the pool's first stream
  for (int r = 0; r < 4; ++r) {           // record-like rounds: random pool stream, spacer
    void* sp = nullptr;
    size_t blocks = rng() % 64;
    if (blocks) RT(cudaMalloc(&sp, blocks << 21));
    cudaStream_t s = pool[rng() % pool.size()];
    put("R100", level(s, 100, step));
    put("R1000", level(s, 1000, step));
    if (sp) RT(cudaFree(sp));
  }
  put("C100", level(fresh2, 100, step));  // at the end, fresh stream again
  give();
  std::printf("pid %d%s\n", getpid(), line.c_str());
  return 0;
}
