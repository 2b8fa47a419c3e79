#pragma once
// RAII over a CUPTI profiler host object (cupti_profiler_host.h).
#include <string>

#include <cupti_profiler_host.h>

#include "cupti/profiler/cupti_call.hpp"

namespace gpubench::detail {

/// One CUPTI host object (RAII). Config images accumulate the metrics added to their host object,
/// so each config gets a fresh one; queries share the catalog's.
class host_object {
 public:
  host_object(const std::string& chip, const std::uint8_t* counter_availability) {
    CUpti_Profiler_Host_Initialize_Params p{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = counter_availability;
    GPUBENCH_CUPTI(cuptiProfilerHostInitialize(&p));
    obj_ = p.pHostObject;
  }
  ~host_object() {
    if (!obj_) return;
    CUpti_Profiler_Host_Deinitialize_Params p{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    p.pHostObject = obj_;
    cuptiProfilerHostDeinitialize(&p);
  }
  host_object(const host_object&) = delete;
  host_object& operator=(const host_object&) = delete;
  [[nodiscard]] CUpti_Profiler_Host_Object* get() const { return obj_; }

 private:
  CUpti_Profiler_Host_Object* obj_ = nullptr;
};


}  // namespace gpubench::detail
