#include "gpubench/registry.hpp"

static const gpubench::registration reg = gpubench::chapter("Launch overhead, batching and host-device transfers");
