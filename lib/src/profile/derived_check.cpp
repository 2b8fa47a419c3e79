// Derived fields recomputed on reading (derived_check.hpp). `report`, `export` and `roofline`
// show a record's throughput, floor and speedup; `compare` recomputes its own from the samples.
// A profile whose stored figures disagree with its own samples would make them tell different
// stories (a forged 42x speedup in the report, 1.03x in compare), so the reader recomputes them
// with the same functions the runner used (derive, rank_tuning, derive_metrics) and refuses the
// file when they differ: one rule, so every output shows the same, recomputed, numbers.
#include "profile/derived_check.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "gpubench/error.hpp"
#include "gpubench/metrics.hpp"
#include "gpubench/record.hpp"

namespace gpubench::detail {

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

bool close(double stored, double recomputed) {
  if (stored == recomputed) return true;
  return std::abs(stored - recomputed) <= kDerivedRelTolerance * std::max(std::abs(stored), std::abs(recomputed));
}

class checker {
 public:
  checker(const std::string& source, std::size_t index) : source_(source), index_(index) {}

  [[noreturn]] void fail(const std::string& field, const std::string& stored, const std::string& recomputed) const {
    throw usage_error(source_ + ": records[" + std::to_string(index_) + "]." + field + ": " + stored +
                      " does not match what the record's samples, work model and the profile's ceilings give (" +
                      recomputed +
                      "); derived fields are recomputed on reading, never taken as stored: was the profile edited "
                      "by hand? Restore the value, or re-run");
  }
  void value(const std::string& field, double stored, double recomputed) const {
    if (!close(stored, recomputed)) fail(field, number(stored), number(recomputed));
  }
  void optional(const std::string& field, const std::optional<double>& stored,
                const std::optional<double>& recomputed) const {
    if (stored.has_value() != recomputed.has_value())
      fail(field, stored ? number(*stored) : "null", recomputed ? number(*recomputed) : "null");
    if (stored) value(field, *stored, *recomputed);
  }

 private:
  const std::string& source_;
  std::size_t index_;
};

void check_record(const record& stored, const record& recomputed, const checker& c) {
  c.value("throughput.bytes_per_s", stored.bytes_per_s, recomputed.bytes_per_s);
  c.value("throughput.flops_per_s", stored.flops_per_s, recomputed.flops_per_s);
  c.value("throughput.s_per_item", stored.s_per_item, recomputed.s_per_item);
  if (stored.floor.has_value() != recomputed.floor.has_value())
    c.fail("floor", stored.floor ? "a floor" : "null",
           recomputed.floor ? "a floor of " + number(recomputed.floor->time_s) + " s" : "no floor");
  if (stored.floor) {
    const floor_info &s = *stored.floor, &r = *recomputed.floor;
    c.value("floor.time_s", s.time_s, r.time_s);
    c.value("floor.fraction", s.fraction, r.fraction);
    if (s.bound != r.bound) c.fail("floor.bound", "\"" + s.bound + "\"", "\"" + r.bound + "\"");
    if (s.suspect != r.suspect) c.fail("floor.suspect", s.suspect ? "true" : "false", r.suspect ? "true" : "false");
  }
  c.optional("speedup_vs_baseline", stored.speedup, recomputed.speedup);
  if (stored.metrics && recomputed.metrics) {
    const auto& s = stored.metrics->derived;
    const auto& r = recomputed.metrics->derived;
    for (const auto& [name, v] : s) {
      const auto it = r.find(name);
      if (it == r.end()) c.fail("metrics.derived." + name, number(v), "nothing: the raw values do not give it");
      c.value("metrics.derived." + name, v, it->second);
    }
    for (const auto& [name, v] : r)
      if (!s.contains(name)) c.fail("metrics.derived." + name, "missing", number(v));
  }
}

}  // namespace

void recheck_derived(profile& p, const std::string& source) {
  // Each size's first record is its baseline (the runner writes a size's variants in declaration
  // order, and derives every one against the first).
  std::map<std::tuple<int, std::string, std::string>, std::vector<std::size_t>> sizes;
  for (std::size_t i = 0; i < p.records.size(); ++i) {
    const record& r = p.records[i];
    sizes[{r.chapter, r.pair, r.size.to_string()}].push_back(i);
  }
  for (const auto& [key, members] : sizes) {
    const record* baseline = nullptr;
    std::vector<record> tuned;  // copies of the size's tuning records, re-ranked below
    for (const std::size_t i : members) {
      record& r = p.records[i];
      const checker c(source, i);
      // derive() reads only the summary, the work model and the status; it never touches the samples.
      record recomputed;
      recomputed.status = r.status;
      recomputed.declared = r.declared;
      recomputed.stats = r.stats;
      derive(recomputed, p.ceil, baseline);
      if (r.metrics) {
        recomputed.metrics = metric_result{};
        recomputed.metrics->derived = derive_metrics(r.metrics->values);
      }
      check_record(r, recomputed, c);
      r.bytes_per_s = recomputed.bytes_per_s;
      r.flops_per_s = recomputed.flops_per_s;
      r.s_per_item = recomputed.s_per_item;
      r.floor = recomputed.floor;
      r.speedup = recomputed.speedup;
      if (r.metrics) r.metrics->derived = std::move(recomputed.metrics->derived);
      if (baseline == nullptr) baseline = &r;
      if (r.tuning) {
        record copy;
        copy.status = r.status;
        copy.stats = r.stats;
        copy.tuning = r.tuning;
        tuned.push_back(std::move(copy));
      }
    }
    if (tuned.empty()) continue;
    rank_tuning(tuned);
    std::size_t k = 0;
    for (const std::size_t i : members) {
      record& r = p.records[i];
      if (!r.tuning) continue;
      const std::size_t want = tuned[k++].tuning->rank;
      if (r.tuning->rank != want)
        checker(source, i).fail("tuning.rank", std::to_string(r.tuning->rank), std::to_string(want));
    }
  }
}

}  // namespace gpubench::detail
