/// The profile's JSON form (docs/profile-schema.md). Writing uses a fixed key order so profiles
/// diff cleanly; reading validates every field, because `report` and `compare` trust what they
/// load, and a hand-edited or damaged file must fail with the JSON path of the problem rather
/// than produce a wrong comparison.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "profile/derived_check.hpp"
#include "text/untrusted_text.hpp"
#include "gpubench/compute_peaks.hpp"
#include "gpubench/error.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/stats.hpp"

namespace gpubench {
namespace {

using detail::clean_text;
using detail::kMaxLongTextBytes;
using detail::kMaxShortTextBytes;
using ojson = nlohmann::ordered_json;

// Every enumerator, for parsing back and for listing the allowed values in a message.
constexpr std::array kStatuses{record_status::passed, record_status::failed, record_status::error,
                               record_status::skipped, record_status::profiled};
constexpr std::array kStopReasons{stop_reason::converged, stop_reason::max_samples, stop_reason::timeout,
                                  stop_reason::single_run};
constexpr std::array kTimingMethods{timing_method::cuda_events, timing_method::host_wall};
constexpr std::array kCacheModes{cache_mode::cold, cache_mode::hot};
constexpr std::array kTimeSources{time_source::gpu_busy, time_source::cuda_events, time_source::host_wall,
                                   time_source::cuda_events_net};
constexpr std::array kDispositions{disposition::passed, disposition::incorrect, disposition::not_verified,
                                   disposition::reference};
constexpr std::array kBytesPaths{bytes_path::dram, bytes_path::pcie, bytes_path::pcie_duplex, bytes_path::peer,
                                 bytes_path::peer_duplex};
constexpr std::array kFlopKinds{flop_kind::fp32, flop_kind::fp64, flop_kind::tf32, flop_kind::fp16,
                                flop_kind::bf16, flop_kind::fp8,  flop_kind::int8, flop_kind::fp64_tensor};
constexpr std::array kToleranceKinds{tolerance::kind::exact, tolerance::kind::relative_l2};

// The summary's double fields in profile order; rel_noise comes last and is read separately
// because it is legitimately +inf (written as null) for fewer than three samples.
constexpr std::pair<const char*, double summary::*> kSummaryFields[] = {
    {"min", &summary::min},     {"max", &summary::max}, {"mean", &summary::mean}, {"stdev", &summary::stdev},
    {"median", &summary::median}, {"q1", &summary::q1},   {"q3", &summary::q3},     {"p95", &summary::p95},
    {"p99", &summary::p99},     {"mad", &summary::mad}};

// verify.hpp has no to_string for tolerance::kind; the profile spells it like the enumerators.
const char* name_of(tolerance::kind k) { return k == tolerance::kind::exact ? "exact" : "relative_l2"; }
template <class E>
const char* name_of(E e) {
  return to_string(e);
}

// The most launch facts a record may hold (a pair reports a handful; docs/profile-schema.md).
constexpr std::size_t kMaxFacts = 64;

// ---------------------------------------------------------------------------------- writing

// nlohmann writes NaN and inf as null without complaint; make that explicit so the reader knows
// a null in a numeric field means "not finite" and never sees a number it cannot trust.
ojson num(double v) { return std::isfinite(v) ? ojson(v) : ojson(nullptr); }
template <class T>
ojson opt(const std::optional<T>& v) {
  if (!v) return nullptr;
  if constexpr (std::is_floating_point_v<T>) return num(*v);
  else return *v;
}

ojson ceilings_json(const ceilings& c) {
  ojson table = ojson::array();
  for (const ceiling& x : c.table)
    table.push_back({{"name", x.name}, {"unit", x.unit}, {"value", num(x.value)}, {"theoretical", num(x.theoretical)},
                     {"reference", num(x.reference)}, {"method", x.method}});
  return {{"source", c.source},
          {"dram_bytes_per_s", num(c.dram_bytes_per_s)},
          {"pcie_bytes_per_s", num(c.pcie_bytes_per_s)},
          {"pcie_duplex_bytes_per_s", num(c.pcie_duplex_bytes_per_s)},
          {"fp32_flops_per_s", num(c.fp32_flops_per_s)},
          {"fp64_flops_per_s", num(c.fp64_flops_per_s)},
          {"tf32_flops_per_s", num(c.tf32_flops_per_s)},
          {"fp16_flops_per_s", num(c.fp16_flops_per_s)},
          {"bf16_flops_per_s", num(c.bf16_flops_per_s)},
          {"fp8_flops_per_s", num(c.fp8_flops_per_s)},
          {"fp64_tensor_flops_per_s", num(c.fp64_tensor_flops_per_s)},
          {"int8_ops_per_s", num(c.int8_ops_per_s)},
          {"peer_bytes_per_s", num(c.peer_bytes_per_s)},
          {"measured_at", c.measured_at},
          {"table", std::move(table)}};
}

ojson device_json(const device_info& d) {
  return {{"ordinal", d.ordinal}, {"name", d.name}, {"uuid", d.uuid}, {"pci_bus_id", d.pci_bus_id},
          {"cc_major", d.cc_major}, {"cc_minor", d.cc_minor}, {"sm_count", d.sm_count},
          {"sm_clock_max_mhz", num(d.sm_clock_max_mhz)}, {"memory_clock_mhz", num(d.memory_clock_mhz)},
          {"memory_bus_width_bits", d.memory_bus_width_bits}, {"memory_bytes", d.memory_bytes},
          {"l2_bytes", d.l2_bytes}, {"shared_per_sm_bytes", d.shared_per_sm_bytes},
          {"ecc_enabled", d.ecc_enabled}, {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version}, {"driver_string", d.driver_string},
          {"pcie_gen_max", opt(d.pcie_gen_max)}, {"pcie_width_max", opt(d.pcie_width_max)},
          {"pcie_gen_current", opt(d.pcie_gen_current)}, {"pcie_width_current", opt(d.pcie_width_current)},
          {"power_limit_w", opt(d.power_limit_w)}, {"nvml_available", d.nvml_available}};
}

ojson record_json(const record& r) {
  ojson j = ojson::object();
  j["id"] = r.id();
  j["chapter"] = r.chapter;
  j["pair"] = r.pair;
  j["variant"] = r.variant;
  ojson size = ojson::object();
  // Not a structured binding: Clang < 16 cannot capture one in a lambda (the fuzz build uses Clang).
  for (const auto& entry : r.size.entries()) std::visit([&](const auto& v) { size[entry.first] = v; }, entry.second);
  j["size"] = std::move(size);
  j["status"] = name_of(r.status);
  j["reason"] = clean_text(r.reason, kMaxLongTextBytes);
  j["verification"] = {{"disposition", name_of(r.check.result)},
                       {"tolerance", {{"kind", name_of(r.tol.type)}, {"max_rel_l2", num(r.tol.max_rel_l2)}}},
                       {"elements", r.check.elements},
                       {"non_finite", r.check.non_finite},
                       {"mismatches", r.check.mismatches},
                       {"rel_l2_error", num(r.check.rel_l2_error)},
                       {"max_abs_error", num(r.check.max_abs_error)},
                       {"message", clean_text(r.check.message, kMaxLongTextBytes)}};
  j["work"] = {{"bytes", num(r.declared.bytes)}, {"flops", num(r.declared.flops)},
               {"path", name_of(r.declared.path)}, {"flops_kind", name_of(r.declared.flops_kind)},
               {"items", num(r.declared.items)}, {"item_name", r.declared.item_name}};
  const timing_data& t = r.timing;
  ojson samples = ojson::array(), clocks = ojson::array(), throttled = ojson::array();
  for (double s : t.samples_s) samples.push_back(num(s));
  for (double c : t.sm_clock_mhz) clocks.push_back(num(c));
  for (std::uint8_t b : t.throttled) throttled.push_back(static_cast<int>(b));
  j["timing"] = {{"method", name_of(t.method)}, {"cache", name_of(t.cache)}, {"stop_reason", name_of(t.stopped)},
                 {"wall_s", num(t.wall_s)}, {"setup_s", num(t.setup_s)}, {"verify_s", num(t.verify_s)},
                 {"clock_source", t.clock_source}, {"source", name_of(t.source)}, {"samples_s", std::move(samples)}};
  if (!t.span_s.empty()) {
    ojson spans = ojson::array();
    for (double x : t.span_s) spans.push_back(num(x));
    j["timing"]["span_s"] = std::move(spans);
  }
  ojson rounds = ojson::array();
  for (const round_info& ri : t.rounds) {
    ojson round = {{"samples", ri.samples}, {"stop_reason", name_of(ri.stopped)}, {"wall_s", num(ri.wall_s)}};
    if (ri.process > 0) round["process"] = ri.process;  // rounds of a later worker or confirmation process
    if (ri.cycle >= 0) round["cycle"] = ri.cycle;       // gpubench ab only
    if (ri.placement_bytes > 0) round["placement_bytes"] = ri.placement_bytes;
    if (ri.event_overhead_s > 0) round["event_overhead_s"] = num(ri.event_overhead_s);  // cuda_events_net only
    rounds.push_back(std::move(round));
  }
  j["timing"]["rounds"] = std::move(rounds);
  j["timing"]["sm_clock_mhz"] = std::move(clocks);
  j["timing"]["throttled"] = std::move(throttled);
  j["summary"] = nullptr;
  if (r.stats) {
    j["summary"] = {{"count", r.stats->count}};
    for (const auto& [key, member] : kSummaryFields) j["summary"][key] = num((*r.stats).*member);
    j["summary"]["rel_noise"] = num(r.stats->rel_noise);
  }
  j["throughput"] = {{"bytes_per_s", num(r.bytes_per_s)}, {"flops_per_s", num(r.flops_per_s)},
                     {"s_per_item", num(r.s_per_item)}};
  if (r.floor) {
    j["floor"] = {{"time_s", num(r.floor->time_s)}, {"bound", r.floor->bound},
                  {"fraction", num(r.floor->fraction)}, {"suspect", r.floor->suspect}};
  } else {
    j["floor"] = nullptr;
  }
  j["speedup_vs_baseline"] = opt(r.speedup);
  if (r.metrics) j["metrics"] = to_json(*r.metrics);  // optional: only runs with --metrics have it
  if (r.goodput) {  // optional: only pairs that declare goodput have it
    const goodput_info& g = *r.goodput;
    j["goodput"] = g.reason.empty()
                       ? ojson{{"fraction", num(g.fraction)}, {"kernel_s", num(g.kernel_s)}, {"wall_s", num(g.wall_s)}, {"runs", g.runs}}
                       : ojson{{"reason", g.reason}};
    if (g.reason.empty() && g.wall_traced_s > 0) j["goodput"]["wall_traced_s"] = num(g.wall_traced_s);
  }
  // Optional (chapter 6 on): what the pair said about the variant's launch, and a tuning pair's
  // configuration and rank. The writer holds itself to the reader's rules, so what it writes reads back.
  if (!r.facts.empty()) {
    ojson facts = ojson::object();
    for (const auto& [key, value] : r.facts)
      if (facts.size() < kMaxFacts && detail::valid_name(key) && std::isfinite(value) && value >= 0) facts[key] = value;
    j["launch_facts"] = std::move(facts);
  }
  if (r.tuning) {
    ojson config = ojson::object();
    for (const auto& [tag, value] : r.tuning->config.values()) config[tag] = value;
    j["tuning"] = {{"config", std::move(config)}, {"rank", r.tuning->rank}};
  }
  return j;
}

// ---------------------------------------------------------------------------------- reading

constexpr double kInf = std::numeric_limits<double>::infinity();

// Bounds on what one profile may hold: far above anything a run writes (10 000 samples per
// record at most by default, a few hundred records per chapter), far below what would let a
// hostile file exhaust memory or flood a console.
constexpr std::size_t kMaxRecords = 100'000;
constexpr std::size_t kMaxSamples = 1'000'000;
constexpr std::size_t kMaxArgv = 256;
constexpr std::size_t kMaxAxes = 16;
constexpr std::size_t kMaxRounds = 1000;
constexpr std::size_t kMaxCeilings = 64;
constexpr std::size_t kMaxOptionValues = 4096;  // every value in "options", nested ones included
constexpr int kMaxOptionDepth = 8;
// The units a ceilings table holds (lib/src/device_model/theoretical_ceilings.cpp writes them).
constexpr std::array<const char*, 3> kUnits{"B/s", "FLOP/s", "s"};
// Samples are physical times: no kernel launch or copy completes in under a nanosecond, and no
// one sample of a benchmark runs for a day. Both bounds keep every ratio of samples finite.
constexpr double kMinSampleS = 1e-9;
constexpr double kMaxSampleS = 86'400;
// Work and ceilings: 1e24 FLOP would keep a 1 PFLOP/s GPU busy for 30 years, so no declared work
// and no measured rate comes near it; the bounds keep work / time and work / rate finite.
constexpr double kMaxWork = 1e24;
constexpr double kMaxRate = 1e24;
// A stored summary statistic may differ from the one recomputed from the samples by this much,
// relative: room for rounding by another writer, none for an edit that changes a verdict.
constexpr double kSummaryRelTolerance = 1e-6;

std::string fmt_double(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

/// A JSON value together with its path ("records[3].timing.samples_s[7]"), so every check can
/// say exactly where the problem is.
template <class Json>
class node {
 public:
  node(const Json& j, std::string path, const std::string& source) : j_(j), path_(std::move(path)), source_(source) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw usage_error(source_ + ": " + (path_.empty() ? std::string("top level") : path_) + ": " + what);
  }
  [[nodiscard]] const Json& raw() const { return j_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] bool null() const { return j_.is_null(); }

  [[nodiscard]] node at(const char* key) const {
    if (!j_.is_object()) fail("must be a JSON object");
    const std::string child = path_.empty() ? std::string(key) : path_ + "." + key;
    auto it = j_.find(key);
    if (it == j_.end()) throw usage_error(source_ + ": missing field '" + child + "'");
    return {*it, child, source_};
  }
  [[nodiscard]] bool has(const char* key) const { return j_.is_object() && j_.find(key) != j_.end(); }
  /// The length of an array of at most `max` entries (a bound on what a hostile file can make us hold).
  [[nodiscard]] std::size_t array_size(std::size_t max) const {
    if (!j_.is_array()) fail("must be a JSON array");
    if (j_.size() > max)
      fail("has " + std::to_string(j_.size()) + " entries; at most " + std::to_string(max) + " are allowed");
    return j_.size();
  }
  [[nodiscard]] node operator[](std::size_t i) const {
    return {j_.at(i), path_ + "[" + std::to_string(i) + "]", source_};
  }
  void require_object() const {
    if (!j_.is_object()) fail("must be a JSON object");
  }

  /// Text of at most `max_bytes` with no control characters.
  [[nodiscard]] std::string str(std::size_t max_bytes = kMaxShortTextBytes) const {
    if (!j_.is_string()) fail("must be a string");
    auto s = j_.template get<std::string>();
    if (const std::string problem = detail::text_problem(s, max_bytes); !problem.empty()) fail(problem);
    return s;
  }
  /// A pair, variant or axis name: snake_case, as the registry requires of what chapters declare.
  [[nodiscard]] std::string name() const {
    if (!j_.is_string()) fail("must be a string");
    auto s = j_.template get<std::string>();
    if (!detail::valid_name(s))
      fail("\"" + detail::clean_text(s, detail::kMaxNameBytes) + "\" is not a valid name: snake_case ([a-z0-9_]), 1 to " +
           std::to_string(detail::kMaxNameBytes) + " characters");
    return s;
  }
  /// A timing sample (or event span): a physical time, kMinSampleS to kMaxSampleS seconds. Not
  /// merely positive: a subnormal 1e-320 s is positive, and its throughput is infinite.
  [[nodiscard]] double sample() const {
    if (!j_.is_number() || !std::isfinite(j_.template get<double>()) || !(j_.template get<double>() > 0))
      fail("must be a positive, finite number of seconds");
    const auto v = j_.template get<double>();
    if (v < kMinSampleS || v > kMaxSampleS)
      fail(fmt_double(v) + " s is not a physical time: a sample is at least 1 ns and at most a day (" +
           fmt_double(kMaxSampleS) + " s)");
    return v;
  }
  /// A quantity of work (bytes, FLOPs, items): finite, non-negative and at most kMaxWork, so that
  /// work over the shortest sample stays a finite rate.
  [[nodiscard]] double work_amount() const {
    const double v = nonneg();
    if (v > kMaxWork) fail("is more work than any one timed call does (at most " + fmt_double(kMaxWork) + ")");
    return v;
  }
  /// A ceiling's rate: 0 (not known), or 1 to kMaxRate per second.
  [[nodiscard]] double rate() const {
    const double v = nonneg();
    if (v != 0 && (v < 1 || v > kMaxRate))
      fail("must be 0 (unknown) or a rate of 1 to " + fmt_double(kMaxRate) + " per second");
    return v;
  }
  [[nodiscard]] bool boolean() const {
    if (!j_.is_boolean()) fail("must be true or false");
    return j_.template get<bool>();
  }
  [[nodiscard]] std::int64_t int64() const {
    if (j_.is_number_unsigned()) {
      const auto u = j_.template get<std::uint64_t>();
      if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return static_cast<std::int64_t>(u);
    } else if (j_.is_number_integer()) {
      return j_.template get<std::int64_t>();
    }
    fail("must be an integer (64-bit)");
  }
  [[nodiscard]] int integer() const {
    if (j_.is_number_integer()) {
      const std::int64_t v = int64();
      if (v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max()) return static_cast<int>(v);
    }
    fail("must be an integer (32-bit)");
  }
  [[nodiscard]] std::uint64_t count() const {
    if (j_.is_number_unsigned()) return j_.template get<std::uint64_t>();
    // Parsed text stores 5 as unsigned, but a document built in memory (to_json) may hold a signed 5.
    if (j_.is_number_integer() && j_.template get<std::int64_t>() >= 0)
      return static_cast<std::uint64_t>(j_.template get<std::int64_t>());
    fail("must be a non-negative integer");
  }
  [[nodiscard]] double nonneg() const { return number("must be a finite, non-negative number"); }
  /// A derived value the writer may have nulled because it was not finite.
  [[nodiscard]] double derived(double if_null) const {
    return j_.is_null() ? if_null : number("must be null or a finite, non-negative number");
  }
  template <class E, std::size_t N>
  [[nodiscard]] E one_of(const std::array<E, N>& all) const {
    std::string allowed;
    for (E e : all) allowed += (allowed.empty() ? "\"" : ", \"") + std::string(name_of(e)) + "\"";
    if (!j_.is_string()) fail("must be a string, one of " + allowed);
    const auto s = j_.template get<std::string>();
    for (E e : all)
      if (s == name_of(e)) return e;
    fail("\"" + s + "\" is not one of " + allowed);
  }

 private:
  [[nodiscard]] double number(const char* problem) const {
    if (j_.is_number()) {
      const auto v = j_.template get<double>();
      if (std::isfinite(v) && v >= 0) return v;
    }
    fail(problem);
  }

  const Json& j_;
  std::string path_;
  const std::string& source_;
};

/// "options" is stored as written (its keys vary with the subcommand), so bound it here: nesting,
/// the number of values, and every key and string in it.
template <class Json>
void check_options(const node<Json>& n, int depth, std::size_t& values) {
  if (depth > kMaxOptionDepth) n.fail("nests deeper than " + std::to_string(kMaxOptionDepth) + " levels");
  if (++values > kMaxOptionValues) n.fail("holds more than " + std::to_string(kMaxOptionValues) + " values");
  if (n.raw().is_string()) {
    (void)n.str(kMaxLongTextBytes);
  } else if (n.raw().is_object()) {
    for (auto it = n.raw().begin(); it != n.raw().end(); ++it) {
      if (const std::string problem = detail::text_problem(it.key(), kMaxShortTextBytes); !problem.empty())
        n.fail("a key " + problem);
      check_options(node<Json>(it.value(), n.path() + "." + it.key(), n.source()), depth + 1, values);
    }
  } else if (n.raw().is_array()) {
    for (std::size_t i = 0; i < n.raw().size(); ++i) check_options(n[i], depth + 1, values);
  }
}

template <class Json>
std::optional<int> opt_int(const node<Json>& n) {
  return n.null() ? std::nullopt : std::optional<int>(n.integer());
}

template <class Json>
device_info read_device(const node<Json>& n) {
  device_info d;
  d.ordinal = n.at("ordinal").integer();
  d.name = n.at("name").str();
  d.uuid = n.at("uuid").str();
  d.pci_bus_id = n.at("pci_bus_id").str();
  d.cc_major = n.at("cc_major").integer();
  d.cc_minor = n.at("cc_minor").integer();
  d.sm_count = n.at("sm_count").integer();
  d.sm_clock_max_mhz = n.at("sm_clock_max_mhz").nonneg();
  d.memory_clock_mhz = n.at("memory_clock_mhz").nonneg();
  d.memory_bus_width_bits = n.at("memory_bus_width_bits").integer();
  d.memory_bytes = n.at("memory_bytes").count();
  d.l2_bytes = n.at("l2_bytes").count();
  d.shared_per_sm_bytes = n.at("shared_per_sm_bytes").count();
  d.ecc_enabled = n.at("ecc_enabled").boolean();
  d.driver_version = n.at("driver_version").integer();
  d.runtime_version = n.at("runtime_version").integer();
  d.driver_string = n.at("driver_string").str();
  d.pcie_gen_max = opt_int(n.at("pcie_gen_max"));
  d.pcie_width_max = opt_int(n.at("pcie_width_max"));
  d.pcie_gen_current = opt_int(n.at("pcie_gen_current"));
  d.pcie_width_current = opt_int(n.at("pcie_width_current"));
  if (const auto power = n.at("power_limit_w"); !power.null()) d.power_limit_w = power.nonneg();
  d.nvml_available = n.at("nvml_available").boolean();
  return d;
}

/// Size axes in the order the JSON object lists them (the declaration order: ordered_json keeps it).
template <class Json>
size_point read_size(const node<Json>& n) {
  n.require_object();
  if (n.raw().empty()) n.fail("must name at least one axis");
  if (n.raw().size() > kMaxAxes) n.fail("has more than " + std::to_string(kMaxAxes) + " axes");
  std::vector<std::pair<std::string, axis_value>> entries;
  for (auto it = n.raw().begin(); it != n.raw().end(); ++it) {
    if (!detail::valid_name(it.key()))
      n.fail("axis \"" + clean_text(it.key(), detail::kMaxNameBytes) +
             "\" is not a valid name: snake_case ([a-z0-9_]), 1 to " + std::to_string(detail::kMaxNameBytes) +
             " characters");
    const node<Json> v(it.value(), n.path() + "." + it.key(), n.source());
    if (v.raw().is_number_integer()) {
      const std::int64_t x = v.int64();
      if (x < 0) v.fail("must not be negative");
      entries.emplace_back(it.key(), x);
    } else if (v.raw().is_string()) {
      std::string label = v.str(detail::kMaxNameBytes);
      if (!detail::valid_label(label)) v.fail("\"" + label + "\" is not a valid label: [A-Za-z0-9_.+-]");
      entries.emplace_back(it.key(), std::move(label));
    } else {
      v.fail("must be an integer or a string");
    }
  }
  return size_point(std::move(entries));
}

template <class Json>
std::vector<double> read_numbers(const node<Json>& n) {
  std::vector<double> out(n.array_size(kMaxSamples));
  // A million entries: the path of one is only built when it is wrong.
  for (std::size_t i = 0; i < out.size(); ++i) {
    const Json& v = n.raw()[i];
    const double x = v.is_number() ? v.template get<double>() : -1;
    out[i] = std::isfinite(x) && x >= 0 ? x : n[i].nonneg();
  }
  return out;
}

/// Timing samples: every one a physical time (node::sample; a zero, negative or subnormal time
/// would break every ratio compare and the roofline take of it).
template <class Json>
std::vector<double> read_samples(const node<Json>& n) {
  std::vector<double> out(n.array_size(kMaxSamples));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const Json& v = n.raw()[i];
    const double x = v.is_number() ? v.template get<double>() : 0;
    out[i] = x >= kMinSampleS && x <= kMaxSampleS ? x : n[i].sample();  // the path only when it is wrong
  }
  return out;
}

/// The stored summary must be the summary of the stored samples: compare and the reports read
/// the samples, the console and exports read the summary, and a hand-edited median would make
/// them disagree silently.
template <class Json>
void check_summary(const node<Json>& s, const summary& stored, std::span<const double> samples) {
  const summary expected = summarize(samples);
  const auto close = [](double a, double b) {
    return std::abs(a - b) <= kSummaryRelTolerance * std::max(std::abs(a), std::abs(b));
  };
  // Spreads (stdev, mad) can be 0 or tiny next to the times: judge them on the scale of the times.
  const double scale = expected.max;
  for (const auto& [key, member] : kSummaryFields) {
    const double got = stored.*member, want = expected.*member;
    const bool spread = member == &summary::stdev || member == &summary::mad;
    if (spread ? std::abs(got - want) <= kSummaryRelTolerance * scale : close(got, want)) continue;
    s.at(key).fail(fmt_double(got) + " does not match the samples (their " + key + " is " + fmt_double(want) +
                   "); was the profile edited by hand? Restore the value, or re-run");
  }
  const bool both_inf = !std::isfinite(stored.rel_noise) && !std::isfinite(expected.rel_noise);
  if (!both_inf && !(std::isfinite(stored.rel_noise) && std::isfinite(expected.rel_noise) &&
                     std::abs(stored.rel_noise - expected.rel_noise) <=
                         kSummaryRelTolerance * std::max(1.0, expected.rel_noise)))
    s.at("rel_noise").fail(fmt_double(stored.rel_noise) + " does not match the samples (their rel_noise is " +
                           fmt_double(expected.rel_noise) + ")");
}

/// The tensor peaks, measured_at and table were added with `device --ceilings`, the FP64 tensor
/// and INT8 peaks later still; optional so that earlier profiles still read (the reader fills
/// missing peaks from the device facts).
template <class Json>
ceilings read_ceilings(const node<Json>& c) {
  ceilings out;
  out.source = c.at("source").str();
  out.dram_bytes_per_s = c.at("dram_bytes_per_s").rate();
  out.pcie_bytes_per_s = c.at("pcie_bytes_per_s").rate();
  if (c.has("pcie_duplex_bytes_per_s")) out.pcie_duplex_bytes_per_s = c.at("pcie_duplex_bytes_per_s").rate();
  if (c.has("peer_bytes_per_s")) out.peer_bytes_per_s = c.at("peer_bytes_per_s").rate();
  out.fp32_flops_per_s = c.at("fp32_flops_per_s").rate();
  out.fp64_flops_per_s = c.at("fp64_flops_per_s").rate();
  if (c.has("tf32_flops_per_s")) out.tf32_flops_per_s = c.at("tf32_flops_per_s").rate();
  if (c.has("fp16_flops_per_s")) out.fp16_flops_per_s = c.at("fp16_flops_per_s").rate();
  if (c.has("bf16_flops_per_s")) out.bf16_flops_per_s = c.at("bf16_flops_per_s").rate();
  if (c.has("fp8_flops_per_s")) out.fp8_flops_per_s = c.at("fp8_flops_per_s").rate();
  if (c.has("fp64_tensor_flops_per_s")) out.fp64_tensor_flops_per_s = c.at("fp64_tensor_flops_per_s").rate();
  if (c.has("int8_ops_per_s")) out.int8_ops_per_s = c.at("int8_ops_per_s").rate();
  if (c.has("measured_at")) out.measured_at = c.at("measured_at").str();
  if (c.has("table")) {
    const node<Json> t = c.at("table");
    for (std::size_t i = 0, e = t.array_size(kMaxCeilings); i < e; ++i) {
      const node<Json> x = t[i];
      const node<Json> unit = x.at("unit");
      if (const std::string u = unit.str(); std::find(kUnits.begin(), kUnits.end(), u) == kUnits.end())
        unit.fail("\"" + u + "\" is not one of \"B/s\", \"FLOP/s\", \"s\"");
      out.table.push_back({x.at("name").str(), unit.str(), x.at("value").nonneg(), x.at("theoretical").nonneg(),
                           x.at("reference").nonneg(), x.at("method").str()});
    }
  }
  return out;
}

/// Launch facts (optional): snake_case names, finite non-negative numbers, a bounded count.
template <class Json>
launch_facts read_facts(const node<Json>& f) {
  f.require_object();
  if (f.raw().size() > kMaxFacts)
    f.fail("has " + std::to_string(f.raw().size()) + " entries; at most " + std::to_string(kMaxFacts) + " are allowed");
  launch_facts out;
  for (auto it = f.raw().begin(); it != f.raw().end(); ++it) {
    if (!detail::valid_name(it.key()))
      f.fail("fact \"" + clean_text(it.key(), detail::kMaxNameBytes) + "\" is not a valid name: snake_case ([a-z0-9_]), 1 to " +
             std::to_string(detail::kMaxNameBytes) + " characters");
    out[it.key()] = node<Json>(it.value(), f.path() + "." + it.key(), f.source()).nonneg();
  }
  return out;
}

/// A tuning pair's configuration and rank (optional). The configuration must spell the variant's
/// name, as the id must match the record's fields: a mismatch means a hand edit.
template <class Json>
tuning_result read_tuning(const node<Json>& t, const record& r) {
  const node<Json> c = t.at("config");
  c.require_object();
  if (c.raw().empty()) c.fail("must name at least one parameter");
  if (c.raw().size() > kMaxTuningParams)
    c.fail("has " + std::to_string(c.raw().size()) + " parameters; at most " + std::to_string(kMaxTuningParams) +
           " are allowed");
  std::vector<std::pair<std::string, std::int64_t>> values;
  for (auto it = c.raw().begin(); it != c.raw().end(); ++it) {
    const std::string& tag = it.key();
    if (tag.empty() || tag.size() > 16 || tag.find_first_not_of("abcdefghijklmnopqrstuvwxyz") != std::string::npos)
      c.fail("parameter \"" + clean_text(tag, detail::kMaxNameBytes) + "\" is not a valid tag: 1 to 16 lower-case letters");
    const node<Json> v(it.value(), c.path() + "." + tag, c.source());
    if (!v.raw().is_number_integer() || v.int64() <= 0) v.fail("must be a positive integer");
    values.emplace_back(tag, v.int64());
  }
  tuning_result out{tuning_config(std::move(values)), 0};
  if (out.config.name() != r.variant)
    c.fail("spells the configuration \"" + out.config.name() + "\" but the record's variant is \"" + r.variant +
           "\"; was the profile edited by hand?");
  const node<Json> rank = t.at("rank");
  const std::uint64_t k = rank.count();
  if (k > kMaxRecords) rank.fail("is larger than any profile's record count");
  if (k > 0 && !r.stats) rank.fail("a record that was not timed has no rank (0)");
  out.rank = static_cast<std::size_t>(k);
  return out;
}

template <class Json>
record read_record(const node<Json>& n) {
  record r;
  const node<Json> id = n.at("id");
  const std::string stored_id = id.str();
  const node<Json> chapter = n.at("chapter");
  r.chapter = chapter.integer();
  if (r.chapter < 1 || r.chapter > 99) chapter.fail("must be a chapter number, 1 to 99");
  r.pair = n.at("pair").name();
  r.variant = n.at("variant").name();
  r.size = read_size(n.at("size"));
  r.status = n.at("status").one_of(kStatuses);
  r.reason = n.at("reason").str(kMaxLongTextBytes);

  const node<Json> v = n.at("verification");
  r.check.result = v.at("disposition").one_of(kDispositions);
  r.tol.type = v.at("tolerance").at("kind").one_of(kToleranceKinds);
  r.tol.max_rel_l2 = v.at("tolerance").at("max_rel_l2").nonneg();
  r.check.elements = v.at("elements").count();
  r.check.non_finite = v.at("non_finite").count();
  r.check.mismatches = v.at("mismatches").count();
  // An output full of NaN gives a non-finite error; +inf keeps "unbounded" rather than "exact".
  r.check.rel_l2_error = v.at("rel_l2_error").derived(kInf);
  r.check.max_abs_error = v.at("max_abs_error").derived(kInf);
  r.check.message = v.at("message").str(kMaxLongTextBytes);

  const node<Json> w = n.at("work");
  r.declared.bytes = w.at("bytes").work_amount();
  r.declared.flops = w.at("flops").work_amount();
  r.declared.path = w.at("path").one_of(kBytesPaths);
  r.declared.flops_kind = w.at("flops_kind").one_of(kFlopKinds);
  r.declared.items = w.at("items").work_amount();
  r.declared.item_name = w.at("item_name").str();

  const node<Json> t = n.at("timing");
  r.timing.method = t.at("method").one_of(kTimingMethods);
  r.timing.cache = t.at("cache").one_of(kCacheModes);
  r.timing.stopped = t.at("stop_reason").one_of(kStopReasons);
  r.timing.wall_s = t.at("wall_s").nonneg();
  // Added in gpubench 0.1 after the first reference profiles; optional so those still read.
  if (t.has("setup_s")) r.timing.setup_s = t.at("setup_s").nonneg();
  if (t.has("verify_s")) r.timing.verify_s = t.at("verify_s").nonneg();
  r.timing.clock_source = t.at("clock_source").str();
  r.timing.samples_s = read_samples(t.at("samples_s"));
  const std::size_t samples = r.timing.samples_s.size();
  const node<Json> clocks = t.at("sm_clock_mhz");
  r.timing.sm_clock_mhz = read_numbers(clocks);
  const node<Json> throttled = t.at("throttled");
  for (std::size_t i = 0, e = throttled.array_size(kMaxSamples); i < e; ++i) {
    const Json& b = throttled.raw()[i];
    if (!b.is_number_integer() || (b != 0 && b != 1)) throttled[i].fail("must be 0 or 1");
    r.timing.throttled.push_back(b == 1 ? 1 : 0);
  }
  // Per-sample side data must line up with the samples or the report pairs the wrong values.
  auto check_length = [&](const node<Json>& arr, std::size_t length) {
    if (length != 0 && length != samples)
      arr.fail("has " + std::to_string(length) + " entries but samples_s has " + std::to_string(samples) +
               "; must be empty or one per sample");
  };
  check_length(clocks, r.timing.sm_clock_mhz.size());
  check_length(throttled, r.timing.throttled.size());
  // Schema 2: what the samples are, the event spans beside GPU busy time, and the rounds. A
  // schema-1 record was timed in one round by its method's own clock.
  r.timing.source = r.timing.method == timing_method::host_wall ? time_source::host_wall : time_source::cuda_events;
  if (t.has("source")) r.timing.source = t.at("source").one_of(kTimeSources);
  if (t.has("span_s")) {
    const node<Json> spans = t.at("span_s");
    r.timing.span_s = read_samples(spans);  // spans are times too: positive and finite
    check_length(spans, r.timing.span_s.size());
  }
  if (t.has("rounds")) {
    const node<Json> rounds = t.at("rounds");
    std::size_t total = 0;
    for (std::size_t i = 0, e = rounds.array_size(kMaxRounds); i < e; ++i) {
      const node<Json> ri = rounds[i];
      round_info info{ri.at("samples").count(), ri.at("stop_reason").one_of(kStopReasons), ri.at("wall_s").nonneg()};
      if (info.samples == 0) ri.at("samples").fail("must be at least 1");
      if (ri.has("process")) {
        const node<Json> process = ri.at("process");
        const std::uint64_t k = process.count();
        if (k > kMaxRounds) process.fail("must be at most " + std::to_string(kMaxRounds));
        info.process = static_cast<int>(k);
      }
      if (ri.has("event_overhead_s")) info.event_overhead_s = ri.at("event_overhead_s").nonneg();
      if (ri.has("cycle")) {
        const node<Json> cycle = ri.at("cycle");
        const std::uint64_t c = cycle.count();
        if (c > kMaxRounds) cycle.fail("must be at most " + std::to_string(kMaxRounds));
        info.cycle = static_cast<int>(c);
      }
      if (ri.has("placement_bytes")) info.placement_bytes = ri.at("placement_bytes").count();
      total += info.samples;
      r.timing.rounds.push_back(info);
    }
    if (!r.timing.rounds.empty() && total != samples)
      rounds.fail("count " + std::to_string(total) + " samples in all, but samples_s has " + std::to_string(samples));
  }

  const node<Json> s = n.at("summary");
  if (!s.null()) {
    summary m;
    const node<Json> count = s.at("count");
    m.count = count.count();
    if (m.count == 0 || m.count != samples)
      count.fail(std::to_string(m.count) + " does not match the " + std::to_string(samples) +
                 " entries of timing.samples_s");
    for (const auto& [key, member] : kSummaryFields) m.*member = s.at(key).nonneg();
    m.rel_noise = s.at("rel_noise").derived(kInf);  // +inf: too few samples to estimate
    check_summary(s, m, r.timing.samples_s);
    r.stats = m;
  }

  const node<Json> tp = n.at("throughput");
  r.bytes_per_s = tp.at("bytes_per_s").derived(0);
  r.flops_per_s = tp.at("flops_per_s").derived(0);
  r.s_per_item = tp.at("s_per_item").derived(0);
  const node<Json> f = n.at("floor");
  if (!f.null()) {
    r.floor = floor_info{f.at("time_s").derived(0), f.at("bound").str(), f.at("fraction").derived(0),
                         f.at("suspect").boolean()};
  }
  const node<Json> speedup = n.at("speedup_vs_baseline");
  if (!speedup.null()) r.speedup = speedup.nonneg();
  if (n.has("metrics") && !n.at("metrics").null())
    r.metrics = metric_result_from_json(n.at("metrics").raw(), n.source() + ": " + n.at("metrics").path());
  if (n.has("goodput") && !n.at("goodput").null()) {
    const node<Json> gn = n.at("goodput");
    gn.require_object();
    goodput_info g;
    if (gn.has("reason")) {
      g.reason = gn.at("reason").str();
      if (g.reason.empty()) gn.at("reason").fail("must say why goodput was not measured");
    } else {
      g.kernel_s = gn.at("kernel_s").nonneg();
      g.wall_s = gn.at("wall_s").sample();
      g.fraction = gn.at("fraction").nonneg();
      g.runs = gn.at("runs").integer();
      if (g.runs < 1 || g.runs > 1000) gn.at("runs").fail("must be 1 to 1000");
      // Absent from profiles written before the wall time became the timed median.
      if (gn.has("wall_traced_s")) {
        g.wall_traced_s = gn.at("wall_traced_s").sample();
        // Since then wall_s is the record's own timed median.
        if (r.stats && std::fabs(g.wall_s - r.stats->median) > 1e-9 * r.stats->median)
          gn.at("wall_s").fail("does not equal the record's median (" + std::to_string(r.stats->median) + " s)");
      }
      // The fraction is kernel_s / wall_s; a profile where they disagree was edited.
      if (std::fabs(g.fraction - g.kernel_s / g.wall_s) > 1e-6 * std::max(1.0, g.fraction))
        gn.at("fraction").fail("does not equal kernel_s / wall_s");
    }
    r.goodput = g;
  }
  if (n.has("launch_facts")) r.facts = read_facts(n.at("launch_facts"));
  if (n.has("tuning")) r.tuning = read_tuning(n.at("tuning"), r);

  // The id is redundant on purpose: a mismatch means someone edited the fields by hand.
  if (const std::string expected = r.id(); expected != stored_id)
    id.fail("\"" + stored_id + "\" does not match the id recomputed from the record's fields, \"" + expected +
            "\"; was the profile edited by hand?");
  return r;
}

template <class Json>
profile read_profile_json(const Json& j, const std::string& source, bool check_derived) {
  const node<Json> top(j, "", source);
  top.require_object();
  if (const node<Json> schema = top.at("schema"); !schema.raw().is_string() || schema.str() != kProfileSchema)
    schema.fail("expected \"" + std::string(kProfileSchema) + "\"; this file is not a gpubench profile");
  const node<Json> version = top.at("schema_version");
  if (!version.raw().is_number_integer()) version.fail("must be an integer");
  // Version 1 (before rounds and GPU busy time) still reads: its records count as one round each.
  if (const std::int64_t v = version.int64(); v != kProfileSchemaVersion && v != 1)
    throw usage_error(source + ": schema_version " + std::to_string(v) + " is not supported (this gpubench reads versions 1 to " +
                      std::to_string(kProfileSchemaVersion) +
                      "); read it with the gpubench that wrote it, or re-run with this one");

  profile p;
  p.complete = top.at("complete").boolean();
  const node<Json> prov = top.at("provenance");
  p.prov.gpubench_version = prov.at("gpubench_version").str();
  p.prov.git_sha = prov.at("git_sha").str();
  const node<Json> argv = prov.at("argv");
  for (std::size_t i = 0, e = argv.array_size(kMaxArgv); i < e; ++i) p.prov.argv.push_back(argv[i].str(kMaxLongTextBytes));
  p.prov.started_at = prov.at("started_at").str();
  p.prov.finished_at = prov.at("finished_at").str();
  p.prov.hostname = prov.at("hostname").str();
  p.prov.os = prov.at("os").str();
  p.prov.device = read_device(prov.at("device"));

  const node<Json> options = top.at("options");
  options.require_object();
  std::size_t option_values = 0;
  check_options(options, 0, option_values);
  p.options = options.raw();  // basic_json converts between its specializations

  const node<Json> c = top.at("ceilings");
  p.ceil = read_ceilings(c);
  // A profile written before every precision had a peak (no "int8_ops_per_s": its theoretical
  // tensor peaks were 0) gets the theoretical ones from its device facts, and its floors are
  // derived again from them, so every record is judged against the roof of its own kind (a bf16
  // GEMM against BF16, not FP32 or DRAM). A later profile reads exactly as written.
  const bool fill_peaks = !c.has("int8_ops_per_s");

  const node<Json> records = top.at("records");
  std::unordered_map<std::string, std::size_t> first_of;  // id -> index, to refuse repeats
  for (std::size_t i = 0, e = records.array_size(kMaxRecords); i < e; ++i) {
    try {
      p.records.push_back(read_record(records[i]));
    } catch (const error& problem) {
      // Name the record as well as its index, when its id is printable text.
      const auto& id = records[i].raw().is_object() ? records[i].raw().find("id") : records[i].raw().end();
      if (!records[i].raw().is_object() || id == records[i].raw().end() || !id->is_string() ||
          !detail::text_problem(id->template get<std::string>(), kMaxShortTextBytes).empty())
        throw;
      throw error(problem.code(), std::string(problem.what()) + " (record " + id->template get<std::string>() + ")");
    }
    const auto [it, fresh] = first_of.emplace(p.records.back().id(), i);
    if (!fresh)
      records[i].at("id").fail("\"" + it->first + "\" repeats records[" + std::to_string(it->second) +
                               "]; each (pair, variant, size) appears once in a profile");
  }
  // Derived fields are checked against the ceilings as written, before any peak is filled in.
  if (check_derived) detail::recheck_derived(p, source);
  if (fill_peaks && !fill_missing_peaks(p.ceil, p.prov.device).empty())
    for (record& r : p.records) r.floor = floor_of(r, p.ceil);
  return p;
}

}  // namespace

nlohmann::ordered_json to_json(const profile& p) {
  ojson j = ojson::object();
  j["schema"] = kProfileSchema;
  j["schema_version"] = kProfileSchemaVersion;
  j["complete"] = p.complete;
  // Text from the command line and the OS is cleaned so that every profile written reads back.
  ojson argv = ojson::array();
  for (std::size_t i = 0; i < p.prov.argv.size() && i < kMaxArgv; ++i)
    argv.push_back(clean_text(p.prov.argv[i], kMaxLongTextBytes));
  j["provenance"] = {{"gpubench_version", p.prov.gpubench_version}, {"git_sha", p.prov.git_sha},
                     {"argv", std::move(argv)}, {"started_at", p.prov.started_at},
                     {"finished_at", p.prov.finished_at}, {"hostname", clean_text(p.prov.hostname, kMaxShortTextBytes)},
                     {"os", clean_text(p.prov.os, kMaxShortTextBytes)}, {"device", device_json(p.prov.device)}};
  j["options"] = p.options;
  j["ceilings"] = ceilings_json(p.ceil);
  ojson records = ojson::array();
  for (const record& r : p.records) records.push_back(record_json(r));
  j["records"] = std::move(records);
  return j;
}

profile profile_from_json(const nlohmann::ordered_json& j, const std::string& source) {
  return read_profile_json(j, source, true);
}

profile worker_profile_from_json(const nlohmann::ordered_json& j, const std::string& source) {
  return read_profile_json(j, source, false);
}

nlohmann::ordered_json to_json(const device_info& d) { return device_json(d); }
nlohmann::ordered_json to_json(const ceilings& c) { return ceilings_json(c); }
ceilings ceilings_from_json(const nlohmann::ordered_json& j, const std::string& source) {
  return read_ceilings(node<ojson>(j, "ceilings", source));
}

}  // namespace gpubench
