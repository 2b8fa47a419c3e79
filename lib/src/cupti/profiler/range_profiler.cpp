// The CUPTI Range Profiler (CUDA >= 12.6): enable on the context, set a config image and a
// counter-data image, replay the work until CUPTI says every pass is in, decode, evaluate with the
// host API. The call sequence follows the CUPTI documentation's range_profiling sample; the code
// is ours. Every failure becomes a reason string on the result; nothing escapes collect().
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cupti/profiler/cupti_call.hpp"
#include "cupti/profiler/host_object.hpp"
#include "gpubench/cupti.hpp"

namespace gpubench {

const char* const kCounterPermissionMessage =
    "GPU performance counters are restricted to admin users: run as root, or load the nvidia module with "
    "NVreg_RestrictProfilingToAdminUsers=0 (https://developer.nvidia.com/ERR_NVGPUCTRPERM)";

std::optional<std::string> external_profiler_reason() {
  // Nsight Compute sets NV_NSIGHT_INJECTION_TRANSPORT_TYPE in the profiled process, Nsight Systems
  // NSYS_PROFILING_SESSION_ID, nvprof NVPROF_ID; all of them (and other CUPTI-based tools) inject
  // through CUDA_INJECTION64_PATH. One CUPTI profiling client per context: ours would fail or,
  // worse, be replayed by the tool.
  const std::pair<const char*, const char*> tools[] = {
      {"NV_NSIGHT_INJECTION_TRANSPORT_TYPE", "Nsight Compute (ncu)"},
      {"NSYS_PROFILING_SESSION_ID", "Nsight Systems (nsys)"},
      {"NVPROF_ID", "nvprof"},
      {"CUDA_INJECTION64_PATH", "a CUDA injection tool (CUDA_INJECTION64_PATH is set)"},
  };
  for (const auto& [var, tool] : tools)
    if (const char* v = std::getenv(var); v != nullptr && *v != '\0')
      return fmt::format("running under {}, which owns the GPU's performance counters: metrics skipped (timing "
                         "still runs); run without the tool to collect them, or use `run --profile` under it",
                         tool);
  return std::nullopt;
}

std::optional<std::string> device_chip_name(int device, std::string* why) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    if (why) *why = "no CUDA device (or no driver) on this machine";
    return std::nullopt;
  }
  if (device < 0 || device >= count) {
    if (why) *why = fmt::format("no CUDA device {} (this machine has {})", device, count);
    return std::nullopt;
  }
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  if (const CUptiResult r = cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS) {
    if (why) *why = "cuptiProfilerInitialize failed: " + detail::cupti_failure::describe(r);
    return std::nullopt;
  }
  CUpti_Device_GetChipName_Params name{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  name.deviceIndex = static_cast<std::size_t>(device);
  const CUptiResult r = cuptiDeviceGetChipName(&name);
  std::optional<std::string> chip;
  if (r == CUPTI_SUCCESS && name.pChipName != nullptr) chip = name.pChipName;
  else if (why) *why = "cuptiDeviceGetChipName failed: " + detail::cupti_failure::describe(r);
  CUpti_Profiler_DeInitialize_Params deinit{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
  cuptiProfilerDeInitialize(&deinit);
  return chip;
}

namespace {

using clock_type = std::chrono::steady_clock;

/// Most kernels one variant may launch in per-kernel mode (ranges in one pass).
constexpr std::size_t kMaxKernelRanges = 512;
/// Counter-data capacity in whole mode, although one user range is pushed. Sized for exactly one
/// range, cuptiRangeProfilerDecodeData crashed (SIGSEGV in NVPW_CUDA_Profiler_DecodeCounters; CUDA
/// 13.0, driver 580.159, H100) whenever the range held cuBLAS's large sm90 SGEMM/cuBLASLt kernels
/// (batched_gemm at m >= 2048, every ch05 pair); with room for 64 it decodes them correctly.
constexpr std::size_t kWholeRanges = 64;

/// Errors that will not go away for the rest of the run, with the sentence a person needs.
std::optional<std::string> lasting_reason(const detail::cupti_failure& e, const std::string& chip) {
  switch (e.code()) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return std::string(kCounterPermissionMessage);
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
    case CUPTI_ERROR_HARDWARE_BUSY:
      return fmt::format("another profiler holds the GPU's performance counters (Nsight Compute or Systems, "
                         "DCGM's profiling module — `dcgmi profile --pause` — or another CUPTI client): {}; "
                         "metrics skipped, timing still runs",
                         e.what());
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
      return fmt::format("this GPU{} does not support the CUPTI Range Profiler here: {}",
                         chip.empty() ? "" : " (" + chip + ")", e.what());
    default: return std::nullopt;
  }
}

/// cuCtxGetCurrent without linking libcuda (the CPU tests load this library on machines without a
/// driver): through the runtime's driver entry point.
CUcontext current_context() {
  using fn_t = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 4000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess || fn == nullptr)
    throw std::runtime_error("cannot look up cuCtxGetCurrent in the CUDA driver");
  CUcontext ctx = nullptr;
  if (reinterpret_cast<fn_t>(fn)(&ctx) != CUDA_SUCCESS || ctx == nullptr)
    throw std::runtime_error("no current CUDA context (call cudaSetDevice and cudaFree(0) first)");
  return ctx;
}

/// The Range Profiler enabled on a context for the lifetime of the object.
class enabled_profiler {
 public:
  explicit enabled_profiler(CUcontext ctx) {
    CUpti_RangeProfiler_Enable_Params p{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    p.ctx = ctx;
    GPUBENCH_CUPTI(cuptiRangeProfilerEnable(&p));
    obj_ = p.pRangeProfilerObject;
  }
  ~enabled_profiler() {
    CUpti_RangeProfiler_Disable_Params p{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = obj_;
    cuptiRangeProfilerDisable(&p);
  }
  enabled_profiler(const enabled_profiler&) = delete;
  enabled_profiler& operator=(const enabled_profiler&) = delete;
  [[nodiscard]] CUpti_RangeProfiler_Object* get() const { return obj_; }

 private:
  CUpti_RangeProfiler_Object* obj_ = nullptr;
};

std::vector<std::uint8_t> counter_availability(CUcontext ctx) {
  CUpti_Profiler_GetCounterAvailability_Params p{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  p.ctx = ctx;
  GPUBENCH_CUPTI(cuptiProfilerGetCounterAvailability(&p));  // size first
  std::vector<std::uint8_t> image(p.counterAvailabilityImageSize);
  p.pCounterAvailabilityImage = image.data();
  GPUBENCH_CUPTI(cuptiProfilerGetCounterAvailability(&p));
  image.resize(p.counterAvailabilityImageSize);
  return image;
}

}  // namespace

struct range_profiler::impl {
  int device = 0;
  bool initialized = false;  // cuptiProfilerInitialize succeeded (DeInitialize in the destructor)
  std::string reason;        // set: not available for the rest of the run
  std::string chip;
  CUcontext ctx = nullptr;
  std::optional<metric_catalog> catalog;
  std::unique_ptr<detail::host_object> evaluator;  // no metrics added: only evaluates counter data
  std::vector<std::uint8_t> availability;
  std::map<std::vector<std::string>, metric_catalog::config> configs;  // creating one is slow

  void start() {
    if (auto why = external_profiler_reason()) {
      reason = *why;
      return;
    }
    try {
      CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
      GPUBENCH_CUPTI(cuptiProfilerInitialize(&init));
      initialized = true;
      CUpti_Device_GetChipName_Params name{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
      name.deviceIndex = static_cast<std::size_t>(device);
      GPUBENCH_CUPTI(cuptiDeviceGetChipName(&name));
      chip = name.pChipName ? name.pChipName : "";
      catalog.emplace(chip);
      evaluator = std::make_unique<detail::host_object>(chip, nullptr);
      ctx = current_context();
      availability = counter_availability(ctx);  // fails while another profiling session is active
      { enabled_profiler probe(ctx); }           // permissions and other subscribers show up here
    } catch (const detail::cupti_failure& e) {
      reason = lasting_reason(e, chip).value_or(fmt::format("cannot start the CUPTI profiler: {}", e.what()));
    } catch (const std::exception& e) {
      reason = fmt::format("cannot start the CUPTI profiler: {}", e.what());
    }
  }

  const metric_catalog::config& config_for(const std::vector<std::string>& metrics) {
    auto it = configs.find(metrics);
    if (it == configs.end()) it = configs.emplace(metrics, catalog->make_config(metrics, availability)).first;
    return it->second;
  }

  void collect(const std::vector<std::string>& metrics, const profiled_work& work, range_mode mode,
               metric_result& out);
};

range_profiler::range_profiler(int device) : impl_(std::make_unique<impl>()) {
  impl_->device = device;
  impl_->start();
}

range_profiler::~range_profiler() {
  impl_->evaluator.reset();
  if (impl_->initialized) {
    CUpti_Profiler_DeInitialize_Params p{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
    cuptiProfilerDeInitialize(&p);
  }
}

bool range_profiler::available() const { return impl_->reason.empty(); }
const std::string& range_profiler::reason() const { return impl_->reason; }
const std::string& range_profiler::chip() const { return impl_->chip; }

void range_profiler::impl::collect(const std::vector<std::string>& metrics, const profiled_work& work,
                                   range_mode mode, metric_result& out) {
  // Only metrics the chip has go into the config: one unknown name would fail the whole image.
  std::vector<std::string> present, named_missing;
  std::map<std::string, bool> is_counter;
  for (const auto& m : metrics) {
    if (const auto p = catalog->describe(m)) {
      present.push_back(m);
      is_counter[m] = p->counter;
    } else {
      out.missing.push_back(m);
      if (!is_optional_metric(m)) named_missing.push_back(m);
    }
  }
  std::vector<std::string> notes;
  if (!named_missing.empty())
    notes.push_back(fmt::format("not available on {}: {}", chip, fmt::join(named_missing, ", ")));
  if (present.empty()) {
    out.status = metrics_status::unavailable;
    out.reason = fmt::format("none of the requested metrics exists on {}: {}", chip, fmt::join(metrics, ", "));
    return;
  }
  const metric_catalog::config& config = config_for(present);
  std::vector<const char*> names;
  for (const auto& m : present) names.push_back(m.c_str());

  const bool whole = mode == range_mode::whole;
  const std::size_t max_ranges = whole ? kWholeRanges : kMaxKernelRanges + work.prepare_kernels;
  enabled_profiler prof(ctx);

  CUpti_RangeProfiler_GetCounterDataSize_Params size{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  size.pRangeProfilerObject = prof.get();
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = max_ranges;
  size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(max_ranges);
  GPUBENCH_CUPTI(cuptiRangeProfilerGetCounterDataSize(&size));
  std::vector<std::uint8_t> counter_data(size.counterDataSize);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  init.pRangeProfilerObject = prof.get();
  init.counterDataSize = counter_data.size();
  init.pCounterData = counter_data.data();
  GPUBENCH_CUPTI(cuptiRangeProfilerCounterDataImageInitialize(&init));

  CUpti_RangeProfiler_SetConfig_Params set{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  set.pRangeProfilerObject = prof.get();
  set.configSize = config.image.size();
  set.pConfig = config.image.data();
  set.counterDataImageSize = counter_data.size();
  set.pCounterDataImage = counter_data.data();
  // Whole: one user range, and we replay the work once per pass (user replay), so multi-kernel
  // variants and ratios over the whole variant come out right. Per kernel: CUPTI puts a range
  // around each launch, and we still replay the whole variant per pass. (CUPTI's kernel replay
  // crashed the same way as the undersized image above on cuBLAS's sm90 kernels; user replay of an
  // idempotent variant gives the same per-kernel counters without it.)
  set.range = whole ? CUPTI_UserRange : CUPTI_AutoRange;
  set.replayMode = CUPTI_UserReplay;
  set.maxRangesPerPass = max_ranges;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  GPUBENCH_CUPTI(cuptiRangeProfilerSetConfig(&set));

  // CUPTI decides the replays; the cap only guards against a loop that never ends.
  const int cap = std::max(config.passes, 1) + 2;
  bool all_submitted = false;
  int replays = 0;
  while (!all_submitted && replays < cap) {
    CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    start.pRangeProfilerObject = prof.get();
    GPUBENCH_CUPTI(cuptiRangeProfilerStart(&start));
    // After the start, not before it: a read flush run before cuptiRangeProfilerStart left the
    // next kernel writing back about half an L2 of dirty lines (a 4 MiB read counted ~2.3 MB of
    // DRAM writes, a 1 GiB read ~25 MB, whatever flush ran first), while the same flush inside the
    // session leaves it nothing to write back (docs/counters.md, "The flush runs inside the
    // session").
    // Outside the user range, so never counted; in per-kernel mode its ranges are dropped below.
    if (work.prepare) work.prepare();
    if (whole) {
      CUpti_RangeProfiler_PushRange_Params push{CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
      push.pRangeProfilerObject = prof.get();
      push.pRangeName = work.name.c_str();
      GPUBENCH_CUPTI(cuptiRangeProfilerPushRange(&push));
    }
    work.run();
    if (whole) {
      CUpti_RangeProfiler_PopRange_Params pop{CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
      pop.pRangeProfilerObject = prof.get();
      GPUBENCH_CUPTI(cuptiRangeProfilerPopRange(&pop));
    }
    CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = prof.get();
    GPUBENCH_CUPTI(cuptiRangeProfilerStop(&stop));
    all_submitted = stop.isAllPassSubmitted != 0;
    ++replays;
  }
  if (!all_submitted)
    throw std::runtime_error(fmt::format("CUPTI still wanted passes after {} replays ({} expected)", replays, config.passes));
  out.passes = replays;

  CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = prof.get();
  GPUBENCH_CUPTI(cuptiRangeProfilerDecodeData(&decode));
  if (decode.numOfRangeDropped > 0)
    notes.push_back(fmt::format("{} range(s) dropped (more than {} kernels?)", decode.numOfRangeDropped, max_ranges));

  CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = counter_data.data();
  info.counterDataImageSize = counter_data.size();
  GPUBENCH_CUPTI(cuptiRangeProfilerGetCounterDataInfo(&info));
  if (info.numTotalRanges == 0) throw std::runtime_error("CUPTI recorded no range (did the work launch anything?)");

  if (!whole && info.numTotalRanges <= work.prepare_kernels)
    throw std::runtime_error("CUPTI recorded no range of the work itself (did it launch anything?)");
  std::vector<double> v(present.size());
  std::vector<std::string> no_value;  // evaluated to NaN/inf
  for (std::size_t range = whole ? 0 : work.prepare_kernels; range < info.numTotalRanges; ++range) {
    CUpti_Profiler_Host_EvaluateToGpuValues_Params eval{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    eval.pHostObject = evaluator->get();
    eval.pCounterDataImage = counter_data.data();
    eval.counterDataImageSize = counter_data.size();
    eval.rangeIndex = range;
    eval.ppMetricNames = names.data();
    eval.numMetrics = names.size();
    eval.pMetricValues = v.data();
    GPUBENCH_CUPTI(cuptiProfilerHostEvaluateToGpuValues(&eval));
    if (whole) {
      // CUPTI can evaluate a metric to NaN (seen: FFMA count of cublasSgemmBatched at m=8192 in a
      // user range, while the per-kernel collection of the same call counted it): never report a
      // NaN as a value, name it instead.
      for (std::size_t i = 0; i < present.size(); ++i) {
        if (std::isfinite(v[i])) out.values[present[i]] = v[i];
        else no_value.push_back(present[i]);
      }
      break;  // one range by construction
    }
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params name{CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
    name.pCounterDataImage = counter_data.data();
    name.counterDataImageSize = counter_data.size();
    name.rangeIndex = range;
    name.rangeDelimiter = "/";
    kernel_metrics k;
    // CUPTI names an auto range by its index in the pass; the work's kernels count from 0 after prepare's.
    const std::string index = std::to_string(range - work.prepare_kernels);
    k.name = cuptiRangeProfilerCounterDataGetRangeInfo(&name) == CUPTI_SUCCESS && name.rangeName != nullptr &&
                     std::string(name.rangeName) != std::to_string(range)
                 ? std::string(name.rangeName)
                 : index;
    for (std::size_t i = 0; i < present.size(); ++i) {
      if (!std::isfinite(v[i])) {
        no_value.push_back(present[i]);
        continue;
      }
      k.values[present[i]] = v[i];
      // Counters add up over kernels; ratios and throughputs do not, so the totals leave them out.
      if (is_counter[present[i]]) out.values[present[i]] += v[i];
    }
    out.kernels.push_back(std::move(k));
  }
  std::sort(no_value.begin(), no_value.end());
  no_value.erase(std::unique(no_value.begin(), no_value.end()), no_value.end());
  if (!no_value.empty()) notes.push_back(fmt::format("CUPTI returned no value (NaN) for: {}", fmt::join(no_value, ", ")));
  out.status = metrics_status::collected;
  out.reason = fmt::format("{}", fmt::join(notes, "; "));
}

metric_result range_profiler::collect(const std::vector<std::string>& metrics, const profiled_work& work,
                                      range_mode mode) {
  const auto t0 = clock_type::now();
  metric_result out;
  out.chip = impl_->chip;
  out.requested = metrics;
  if (!impl_->reason.empty()) {
    out.reason = impl_->reason;
    return out;
  }
  try {
    impl_->collect(metrics, work, mode, out);
  } catch (const detail::cupti_failure& e) {
    out = metric_result{.status = metrics_status::unavailable, .chip = impl_->chip, .requested = metrics,
                        .missing = out.missing};
    if (auto lasting = lasting_reason(e, impl_->chip)) {
      impl_->reason = *lasting;  // say so for every later record without touching CUPTI again
      out.reason = *lasting;
    } else {
      out.reason = fmt::format("metrics collection failed: {}", e.what());
    }
  } catch (const std::exception& e) {
    out = metric_result{.status = metrics_status::unavailable, .chip = impl_->chip, .requested = metrics,
                        .missing = out.missing};
    out.reason = fmt::format("metrics collection failed: {}", e.what());
  }
  out.derived = derive_metrics(out.values);
  out.collection_s = std::chrono::duration<double>(clock_type::now() - t0).count();
  return out;
}

}  // namespace gpubench
