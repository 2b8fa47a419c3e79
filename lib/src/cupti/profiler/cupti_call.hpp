#pragma once
// Checking CUPTI calls: a failure becomes cupti_failure (the code and the call), which the
// profiler turns into a reason string; it never leaves the metrics pass.
#include <stdexcept>
#include <string>

#include <cupti_result.h>

namespace gpubench::detail {

class cupti_failure : public std::runtime_error {
 public:
  cupti_failure(CUptiResult code, const std::string& call)
      : std::runtime_error(call + " failed: " + describe(code)), code_(code), call_(call) {}
  [[nodiscard]] CUptiResult code() const { return code_; }
  [[nodiscard]] const std::string& call() const { return call_; }

  static std::string describe(CUptiResult code) {
    const char* s = nullptr;
    if (cuptiGetResultString(code, &s) != CUPTI_SUCCESS || s == nullptr) return "CUPTI error " + std::to_string(code);
    return s;
  }

 private:
  CUptiResult code_;
  std::string call_;
};

inline void cupti_check(CUptiResult r, const char* call) {
  if (r != CUPTI_SUCCESS) throw cupti_failure(r, call);
}

}  // namespace gpubench::detail

#define GPUBENCH_CUPTI(call) ::gpubench::detail::cupti_check((call), #call)
