#include "gpubench/registry.hpp"

static const gpubench::registration chapter_04 =
    gpubench::chapter(4, "overlap_reduction", "Reductions, and overlapping host-device copies with compute");
