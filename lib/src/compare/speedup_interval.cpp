// One run's speedups with intervals; see gpubench/speedup_interval.hpp. The arithmetic is the
// per-side estimate of compare_profiles()' speedup section (compare.cpp), on the records' own
// samples.
#include "gpubench/speedup_interval.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "compare/intervals.hpp"
#include "compare/noise_model.hpp"

namespace gpubench {

namespace {

// Positive, finite samples only: the reader admits no others, and a record built in code must not
// turn a log into NaN.
bool timed(const record& r) {
  return r.status == record_status::passed && !r.timing.samples_s.empty() &&
         std::all_of(r.timing.samples_s.begin(), r.timing.samples_s.end(),
                     [](double s) { return std::isfinite(s) && s > 0; });
}

time_source source_of(const record& r) {
  return r.timing.method == timing_method::host_wall ? time_source::host_wall : r.timing.source;
}

}  // namespace

std::optional<ratio_interval> speedup_interval(const record& baseline, const record& variant, double confidence) {
  if (!timed(baseline) || !timed(variant) || !(confidence > 0 && confidence < 1)) return std::nullopt;
  const detail::side_estimate eb = detail::estimate_side(baseline.timing.samples_s, baseline.timing.rounds);
  const detail::side_estimate ev = detail::estimate_side(variant.timing.samples_s, variant.timing.rounds);
  double center = eb.center - ev.center, var = eb.var_center + ev.var_center;
  if (const std::vector<double> per_round = detail::round_log_speedups(baseline.timing, variant.timing);
      !per_round.empty()) {
    const double r = static_cast<double>(per_round.size());
    double m = 0, ss = 0;
    for (double x : per_round) m += x / r;
    for (double x : per_round) ss += (x - m) * (x - m);
    center = m;
    var = std::max(ss / (r - 1) / r, std::max(eb.var_center, ev.var_center));
  }
  const detail::process_noise_model model = detail::process_noise_model::fitted();
  const double pb = model.sd(source_of(baseline), baseline.declared.path, eb);
  const double pv = model.sd(source_of(variant), variant.declared.path, ev);
  const double half = detail::z_for(1 - confidence) * std::sqrt(var + pb * pb + pv * pv);
  return ratio_interval{std::exp(center), std::exp(center - half), std::exp(center + half)};
}

verdict speedup_verdict(const ratio_interval& s, double threshold) {
  return classify({1 / s.estimate, 1 / s.high, 1 / s.low}, threshold);
}

}  // namespace gpubench
