#include "gpubench/registry.hpp"

static const gpubench::registration reg =
    gpubench::chapter("Two GPUs: peer copies, all-reduce, and hiding communication behind compute");
