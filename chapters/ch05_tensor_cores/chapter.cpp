#include "gpubench/registry.hpp"

static const gpubench::registration reg =
    gpubench::chapter("Tensor cores: matmul precision, alignment, fused epilogues and layouts");
