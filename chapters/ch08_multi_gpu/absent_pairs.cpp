// Chapter 8's pairs a build leaves out: the NCCL pairs without NCCL, the pairs that run one
// process per GPU without NCCL or MPI. `gpubench list` shows them with the reason and the fix,
// and `gpubench run --pair` names the reason instead of "no pair" (registry.hpp, absent_pair).
#include "gpubench/registry.hpp"

namespace {

[[maybe_unused]] constexpr const char* kNoNccl =
    "NCCL was not found when gpubench was configured. Install the nvidia-nccl-cu13 wheel with "
    "`scripts/setup-deps.sh --nccl` (into .deps/python), or point -DNCCL_ROOT=DIR at an NCCL install "
    "(DIR/include/nccl.h, DIR/lib/libnccl.so.2), then configure and build again (cmake/FindNCCL.cmake).";
[[maybe_unused]] constexpr const char* kNoMpi =
    "MPI was not found when gpubench was configured: the pairs that run one process per GPU start their "
    "processes through it (`gpubench collective` under mpirun or srun). Install Open MPI (Debian: apt-get "
    "install libopenmpi-dev openmpi-bin), then configure and build again.";

#ifndef GPUBENCH_HAVE_NCCL
const gpubench::registration allreduce =
    gpubench::absent("allreduce", "All-reduce over 2 GPUs: reduce + broadcast over peer copies vs ncclAllReduce",
                     kNoNccl);
const gpubench::registration dp_overlap =
    gpubench::absent("dp_overlap", "A data-parallel step: all-reduce after all compute vs bucket by bucket, overlapped",
                     kNoNccl);
#endif

#if !defined(GPUBENCH_HAVE_NCCL) || !defined(GPUBENCH_HAVE_MPI)
#ifndef GPUBENCH_HAVE_NCCL
constexpr const char* kWhyRanks = kNoNccl;
#else
constexpr const char* kWhyRanks = kNoMpi;
#endif
const gpubench::registration allreduce_ranks =
    gpubench::absent("allreduce_ranks",
                     "All-reduce, one process per GPU: reduce to rank 0 + broadcast vs ncclAllReduce", kWhyRanks);
const gpubench::registration sharded_step = gpubench::absent(
    "sharded_step",
    "Optimizer step, one process per GPU: all-reduce + full update vs reduce-scatter, shard update, all-gather",
    kWhyRanks);
#endif

}  // namespace
