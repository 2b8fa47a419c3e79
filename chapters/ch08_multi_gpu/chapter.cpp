#include "gpubench/registry.hpp"

static const gpubench::registration chapter_08 =
    gpubench::chapter(8, "multi_gpu", "Two GPUs: peer copies, all-reduce, and hiding communication behind compute");
