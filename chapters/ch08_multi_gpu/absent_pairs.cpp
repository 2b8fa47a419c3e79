// Chapter 8's NCCL pairs in a build without NCCL: `gpubench list` shows them with the reason and
// the fix, and `gpubench run --pair` names the reason instead of "no pair" (registry.hpp,
// absent_pair). With NCCL (GPUBENCH_HAVE_NCCL) the pairs themselves are built and this is empty.
#include "gpubench/registry.hpp"

#ifndef GPUBENCH_HAVE_NCCL
namespace {

constexpr const char* kWhy =
    "NCCL was not found when gpubench was configured. Install the nvidia-nccl-cu13 wheel with "
    "`scripts/setup-deps.sh --nccl` (into .deps/python), or point -DNCCL_ROOT=DIR at an NCCL install "
    "(DIR/include/nccl.h, DIR/lib/libnccl.so.2), then configure and build again (cmake/FindNCCL.cmake).";

const gpubench::registration allreduce =
    gpubench::absent("allreduce", "All-reduce over 2 GPUs: reduce + broadcast over peer copies vs ncclAllReduce", kWhy);
const gpubench::registration dp_overlap =
    gpubench::absent("dp_overlap", "A data-parallel step: all-reduce after all compute vs bucket by bucket, overlapped",
                     kWhy);

}  // namespace
#endif
