#include "gpubench/registry.hpp"

static const gpubench::registration chapter_03 =
    gpubench::chapter(3, "intensity_fusion", "Arithmetic intensity and kernel fusion: fewer bytes per FLOP");
