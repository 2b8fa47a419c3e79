#pragma once
#include "gpubench/registry.hpp"

namespace gpubench::detail {
/// SM clock in MHz from a one-thread kernel counting clock64() cycles over %globaltimer
/// nanoseconds. `scratch_host` should be pinned; both hold two values.
double probe_sm_clock_mhz(stream_t stream, unsigned long long* scratch_device, unsigned long long* scratch_host);
/// Reads `bytes` of `buffer` (>= 2x the L2) so the L2 holds only clean lines of it afterwards: dirty
/// lines of earlier work are written back now, not inside the next profiled range. `sink` (one
/// device value) is written only if the data sums to an impossible value, so nothing is elided.
void read_flush(const void* buffer, std::size_t bytes, unsigned long long* sink, stream_t stream);
/// Enqueues a one-thread kernel that sleeps on `stream` for `seconds` (by %globaltimer, in naps of
/// about a microsecond): the GPU stays awake, its clocks up, while drawing little power.
void rest_on_device(double seconds, stream_t stream);
}  // namespace gpubench::detail
