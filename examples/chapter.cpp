// The examples' chapter, as a chapter folder's chapter.cpp declares it: the title only, since the
// number and the slug come from the folder (here the one tests/CMakeLists.txt gives examples/).
#include "gpubench/registry.hpp"

static const gpubench::registration reg = gpubench::chapter("Examples: a minimal pair to start from");
