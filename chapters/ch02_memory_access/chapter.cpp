#include "gpubench/registry.hpp"

static const gpubench::registration chapter_02 =
    gpubench::chapter(2, "memory_access", "Coalescing, data layout, access width and shared-memory reuse");
