#include "gpubench/registry.hpp"

static const gpubench::registration chapter_07 =
    gpubench::chapter(7, "async_hopper",
                      "Asynchronous copies and the Hopper machinery: pipelines, TMA, clusters, persistent kernels, "
                      "SGEMM");
