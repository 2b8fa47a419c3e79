#include "gpubench/registry.hpp"

static const gpubench::registration reg =
    gpubench::chapter("Asynchronous copies and the Hopper machinery: pipelines, TMA, clusters, persistent kernels, "
                      "SGEMM");
