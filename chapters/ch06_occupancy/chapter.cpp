#include "gpubench/registry.hpp"

static const gpubench::registration reg = gpubench::chapter("Occupancy, ILP, divergence and autotuning");
