#include "gpubench/registry.hpp"

static const gpubench::registration reg =
    gpubench::chapter("Coalescing, data layout, access width and shared-memory reuse");
