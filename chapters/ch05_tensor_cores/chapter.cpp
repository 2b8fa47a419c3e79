#include "gpubench/registry.hpp"

static const gpubench::registration chapter_05 =
    gpubench::chapter(5, "tensor_cores", "Tensor cores: matmul precision, alignment, fused epilogues and layouts");
