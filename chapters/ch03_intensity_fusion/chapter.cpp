#include "gpubench/registry.hpp"

static const gpubench::registration reg =
    gpubench::chapter("Arithmetic intensity and kernel fusion: fewer bytes per FLOP");
