#include "gpubench/registry.hpp"

static const gpubench::registration chapter_06 =
    gpubench::chapter(6, "occupancy", "Occupancy, ILP, divergence and autotuning");
