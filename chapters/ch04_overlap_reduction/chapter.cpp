#include "gpubench/registry.hpp"

static const gpubench::registration reg =
    gpubench::chapter("Reductions, and overlapping host-device copies with compute");
