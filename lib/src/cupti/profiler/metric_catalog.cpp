// The CUPTI profiler host API for a named chip: metric properties, config images, pass counts.
// None of it needs a GPU or a driver (libcupti loads libnvperf_host, not libcuda, for these).
#include <algorithm>

#include <cupti_profiler_host.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cupti/profiler/host_object.hpp"
#include "gpubench/cupti.hpp"
#include "gpubench/error.hpp"

namespace gpubench {
struct metric_catalog::impl {
  std::string chip;
  std::unique_ptr<detail::host_object> host;
};

std::vector<std::string> metric_catalog::supported_chips() {
  CUpti_Profiler_Host_GetSupportedChips_Params p{CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE};
  std::vector<std::string> out;
  if (cuptiProfilerHostGetSupportedChips(&p) != CUPTI_SUCCESS) return out;
  for (std::size_t i = 0; i < p.numChips; ++i) out.emplace_back(p.ppChipNames[i]);
  return out;
}

metric_catalog::metric_catalog(const std::string& chip) : impl_(std::make_unique<impl>()) {
  impl_->chip = chip;
  const auto chips = supported_chips();
  if (std::find(chips.begin(), chips.end(), chip) == chips.end())
    throw runtime_error(fmt::format("the CUPTI in this build has no metric tables for chip '{}'; it knows: {}", chip,
                                    fmt::join(chips, ", ")));
  try {
    impl_->host = std::make_unique<detail::host_object>(chip, nullptr);
  } catch (const detail::cupti_failure& e) {
    throw runtime_error(fmt::format("CUPTI host API for chip {}: {}", chip, e.what()));
  }
}

metric_catalog::~metric_catalog() = default;
metric_catalog::metric_catalog(metric_catalog&&) noexcept = default;
metric_catalog& metric_catalog::operator=(metric_catalog&&) noexcept = default;

const std::string& metric_catalog::chip() const { return impl_->chip; }

std::optional<metric_catalog::properties> metric_catalog::describe(const std::string& metric) const {
  CUpti_Profiler_Host_GetMetricProperties_Params p{CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
  p.pHostObject = impl_->host->get();
  p.pMetricName = metric.c_str();
  if (cuptiProfilerHostGetMetricProperties(&p) != CUPTI_SUCCESS) return std::nullopt;
  properties out;
  out.description = p.pDescription ? p.pDescription : "";
  out.unit = p.pDimUnit ? p.pDimUnit : "";
  out.counter = p.metricType == CUPTI_METRIC_TYPE_COUNTER;
  return out;
}

metric_catalog::config metric_catalog::make_config(const std::vector<std::string>& metrics,
                                                   const std::vector<std::uint8_t>& counter_availability) const {
  try {
    detail::host_object host(impl_->chip, counter_availability.empty() ? nullptr : counter_availability.data());
    std::vector<const char*> names;
    for (const auto& m : metrics) names.push_back(m.c_str());
    CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = host.get();
    add.ppMetricNames = names.data();
    add.numMetrics = names.size();
    GPUBENCH_CUPTI(cuptiProfilerHostConfigAddMetrics(&add));
    CUpti_Profiler_Host_GetConfigImageSize_Params size{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    size.pHostObject = host.get();
    GPUBENCH_CUPTI(cuptiProfilerHostGetConfigImageSize(&size));
    config c;
    c.image.resize(size.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params image{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    image.pHostObject = host.get();
    image.configImageSize = c.image.size();
    image.pConfigImage = c.image.data();
    GPUBENCH_CUPTI(cuptiProfilerHostGetConfigImage(&image));
    CUpti_Profiler_Host_GetNumOfPasses_Params passes{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    passes.configImageSize = c.image.size();
    passes.pConfigImage = c.image.data();
    GPUBENCH_CUPTI(cuptiProfilerHostGetNumOfPasses(&passes));
    c.passes = static_cast<int>(passes.numOfPasses);
    return c;
  } catch (const detail::cupti_failure& e) {
    throw runtime_error(fmt::format("metric configuration for chip {} ({}): {}", impl_->chip,
                                    fmt::join(metrics, ", "), e.what()));
  }
}

}  // namespace gpubench
