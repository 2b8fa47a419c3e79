// Enum names as they appear in profiles and on the console. They are part of the profile
// schema: renaming one is an incompatible change (docs/profile-schema.md).
#include <fmt/format.h>

#include "gpubench/record.hpp"

namespace gpubench {

const char* to_string(bytes_path p) {
  switch (p) {
    case bytes_path::dram: return "dram";
    case bytes_path::pcie: return "pcie";
    case bytes_path::pcie_duplex: return "pcie_duplex";
    case bytes_path::peer: return "peer";
    case bytes_path::peer_duplex: return "peer_duplex";
  }
  return "?";
}

const char* to_string(flop_kind k) {
  switch (k) {
    case flop_kind::fp32: return "fp32";
    case flop_kind::fp64: return "fp64";
    case flop_kind::tf32: return "tf32";
    case flop_kind::fp16: return "fp16";
    case flop_kind::bf16: return "bf16";
    case flop_kind::fp8: return "fp8";
  }
  return "?";
}

const char* to_string(element_type t) {
  switch (t) {
    case element_type::f32: return "f32";
    case element_type::f64: return "f64";
    case element_type::f16: return "f16";
    case element_type::bf16: return "bf16";
  }
  return "?";
}

const char* to_string(disposition d) {
  switch (d) {
    case disposition::passed: return "passed";
    case disposition::incorrect: return "incorrect";
    case disposition::not_verified: return "not_verified";
    case disposition::reference: return "reference";
  }
  return "?";
}

const char* to_string(timing_method m) {
  switch (m) {
    case timing_method::cuda_events: return "cuda_events";
    case timing_method::host_wall: return "host_wall";
  }
  return "?";
}

const char* to_string(cache_mode m) {
  switch (m) {
    case cache_mode::cold: return "cold";
    case cache_mode::hot: return "hot";
  }
  return "?";
}

const char* to_string(record_status s) {
  switch (s) {
    case record_status::passed: return "passed";
    case record_status::failed: return "failed";
    case record_status::error: return "error";
    case record_status::skipped: return "skipped";
    case record_status::profiled: return "profiled";
  }
  return "?";
}

const char* to_string(stop_reason r) {
  switch (r) {
    case stop_reason::converged: return "converged";
    case stop_reason::max_samples: return "max_samples";
    case stop_reason::timeout: return "timeout";
    case stop_reason::single_run: return "single_run";
  }
  return "?";
}

const char* to_string(time_source s) {
  switch (s) {
    case time_source::gpu_busy: return "gpu_busy";
    case time_source::cuda_events: return "cuda_events";
    case time_source::host_wall: return "host_wall";
    case time_source::cuda_events_net: return "cuda_events_net";
  }
  return "?";
}

std::string pair_def::id() const { return fmt::format("ch{:02d}/{}", chapter, name); }
std::string absent_pair::id() const { return fmt::format("ch{:02d}/{}", chapter, name); }

std::string record::id() const {
  return fmt::format("ch{:02d}/{}/{}[{}]", chapter, pair, variant, size.to_string());
}

}  // namespace gpubench
