#pragma once
#include "gpubench/registry.hpp"

namespace gpubench::detail {
/// SM clock in MHz from a one-thread kernel counting clock64() cycles over %globaltimer
/// nanoseconds. `scratch_host` should be pinned; both hold two values.
double probe_sm_clock_mhz(stream_t stream, unsigned long long* scratch_device, unsigned long long* scratch_host);
}  // namespace gpubench::detail
