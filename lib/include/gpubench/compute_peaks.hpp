#pragma once
/// Compute peaks per precision: the roof each record is judged against, by the kind of operations
/// its work model declares (work.hpp). Theoretical peaks are SMs x dense operations per SM per
/// clock x the maximum SM clock, as Nsight Compute derives its roofs; the per-architecture rates
/// and their sources are in lib/src/device_model/compute_peaks.cpp. CUDA-free.
#include <array>
#include <string>
#include <vector>

#include "gpubench/device_info.hpp"
#include "gpubench/work.hpp"

namespace gpubench {

/// Every kind of operation a work model declares, in the order roofs are listed.
inline constexpr std::array kAllFlopKinds{flop_kind::fp32, flop_kind::fp64, flop_kind::tf32, flop_kind::fp16,
                                          flop_kind::bf16, flop_kind::fp8,  flop_kind::int8, flop_kind::fp64_tensor};

/// Dense operations per SM per clock cycle of kind `k` on `d` (a multiply-add counts 2; tensor
/// kinds with FP32 accumulation). 0 where the architecture has no such unit or its rate is not
/// known here (compute capabilities other than 8.0, 8.6, 8.9 and 9.0 for tensor kinds).
double ops_per_sm_per_clock(const device_info& d, flop_kind k);

/// The theoretical peak of kind `k` on `d`: SMs x ops_per_sm_per_clock x max SM clock (0 when unknown).
double theoretical_peak(const device_info& d, flop_kind k);

/// The peak of kind `k` held in `c` (FLOP/s; operations per second for int8), 0 when unknown.
double compute_peak(const ceilings& c, flop_kind k);
/// The field of `c` holding the peak of kind `k`.
double& compute_peak_field(ceilings& c, flop_kind k);

/// "measured" when `c`'s measured table holds this kind's peak, else "theoretical".
const char* compute_peak_source(const ceilings& c, flop_kind k);

/// Fills every compute peak of `c` that is 0 with its theoretical value from `d`, so a profile or
/// a cache written before a precision had a peak still judges that precision against its own
/// roof. Returns the kinds it filled (empty when `c` was complete or `d` tells too little).
std::vector<flop_kind> fill_missing_peaks(ceilings& c, const device_info& d);

/// The kind named `name` ("fp32", "bf16", ...), or nullptr for another name.
const flop_kind* flop_kind_named(const std::string& name);

}  // namespace gpubench
