#include "gpubench/registry.hpp"

static const gpubench::registration chapter_01 =
    gpubench::chapter(1, "foundations", "Launch overhead, batching and host-device transfers");
