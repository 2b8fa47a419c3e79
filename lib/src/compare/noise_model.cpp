// compare's noise model; see noise_model.hpp.
#include "compare/noise_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

#include "gpubench/compare.hpp"  // t_quantile_two_sided
#include "gpubench/stats.hpp"

namespace gpubench::detail {

namespace {

double mean(std::span<const double> x) {
  double s = 0;
  for (double v : x) s += v;
  return s / static_cast<double>(x.size());
}

double sample_sd(std::span<const double> x) {
  if (x.size() < 2) return 0;
  const double m = mean(x);
  double ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  return std::sqrt(ss / static_cast<double>(x.size() - 1));
}

/// Log medians of each round (one round when `rounds` is empty or does not add up).
std::vector<double> round_log_medians(std::span<const double> samples, std::span<const round_info> rounds) {
  std::size_t total = 0;
  for (const round_info& r : rounds) total += r.samples;
  if (rounds.empty() || total != samples.size()) return {std::log(median(samples))};
  std::vector<double> out;
  std::size_t first = 0;
  for (const round_info& r : rounds) {
    out.push_back(std::log(median(samples.subspan(first, r.samples))));
    first += r.samples;
  }
  return out;
}

/// The center's variance from the samples' own noise alone: each round's squared relative
/// standard error of its median, summed and divided by the rounds squared (the center is a mean
/// of round medians). Pooled over all samples when the rounds are not labelled or a round has
/// too few samples for its own estimate.
double sample_noise_var(std::span<const double> samples, std::span<const round_info> rounds, std::size_t n_logs) {
  const auto squared = [](double noise) { return std::isfinite(noise) ? noise * noise : 0.0; };
  if (rounds.size() < 2 || n_logs != rounds.size()) return squared(median_rel_noise(samples));
  double sum = 0;
  std::size_t first = 0;
  for (const round_info& r : rounds) {
    const double noise = median_rel_noise(samples.subspan(first, r.samples));
    if (!std::isfinite(noise)) return squared(median_rel_noise(samples));
    sum += noise * noise;
    first += r.samples;
  }
  const double n = static_cast<double>(rounds.size());
  return sum / (n * n);
}

}  // namespace

side_estimate estimate_side(std::span<const double> samples, std::span<const round_info> rounds) {
  if (samples.empty()) throw std::invalid_argument("estimate_side: no samples");
  const std::vector<double> logs = round_log_medians(samples, rounds);
  side_estimate s;
  s.rounds = logs.size();
  s.round_logs = logs;
  const bool labelled = logs.size() == rounds.size() && !rounds.empty();
  for (std::size_t i = 0; i < logs.size(); ++i) {
    s.round_process.push_back(labelled ? rounds[i].process : 0);
    s.round_cycle.push_back(labelled ? rounds[i].cycle : -1);
  }
  // Group the rounds by process: each process's mean, and the rounds' spread about it.
  std::vector<int> ids = s.round_process;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  s.processes = ids.size();
  std::vector<double> means;
  double within_ss = 0;
  for (int id : ids) {
    std::vector<double> group;
    for (std::size_t i = 0; i < logs.size(); ++i)
      if (s.round_process[i] == id) group.push_back(logs[i]);
    const double m = mean(group);
    for (double x : group) within_ss += (x - m) * (x - m);
    means.push_back(m);
  }
  s.center = mean(means);
  const std::size_t within_df = s.rounds - s.processes;
  s.round_sd = within_df > 0 ? std::sqrt(within_ss / static_cast<double>(within_df)) : 0.0;
  // The samples' own noise bounds the center's variance from below: with two or three rounds
  // that happen to agree, the between-round spread alone would claim more precision than the
  // samples have. It is taken within each round (the relative standard error of each round's
  // median, averaged over the rounds as the center averages them): pooled over all rounds, a
  // drift of the machine over a long run would pass for sample noise.
  const double sample_var = sample_noise_var(samples, rounds, logs.size());
  s.noise_var = sample_var;
  if (s.processes >= 2) {
    s.process_var = sample_sd(means) * sample_sd(means);
    const double p = static_cast<double>(s.processes);
    s.var_center = std::max(s.process_var / p, sample_var);
  } else {
    const double round_var = s.rounds >= 2 ? s.round_sd * s.round_sd / static_cast<double>(s.rounds) : 0.0;
    s.var_center = std::max(round_var, sample_var);
  }
  return s;
}

namespace {
/// A group's figure: the mean of the medians of its cycles in either order. A group's cycles, in
/// cycle order, alternate base first and new first (coordinator.hpp, measure_ab), so a linear drift
/// adds +s to one order's differences and -s to the other's; averaging the two orders' figures
/// cancels it as the plain mean does, where one median of all cycles would not. Each order's median
/// stands against a few wild cycles: a round can land in a state where every step pays for
/// something the others do not (training_step's per-step cudaMalloc on an H100: 8 of 64 cycles
/// moved by 14-59%, 53 within 3%), and one such cycle in eight would otherwise decide the
/// interval (docs/measurement.md, "A pair's figure"). With one or two cycles of an order its median
/// is their mean.
double order_balanced_median(const std::vector<double>& d) {
  std::vector<double> first, second;
  for (std::size_t i = 0; i < d.size(); ++i) (i % 2 == 0 ? first : second).push_back(d[i]);
  if (second.empty()) return median(first);
  return 0.5 * (median(first) + median(second));
}

/// How many cycle spreads a cycle's difference may lie from both of its references before it is
/// reined in (rein_in_wild_cycles). Judged again with 1.5, 2, 2.5 and 3, earlier A/A sessions kept
/// 0 false verdicts with each, and 2 gave chapter 1 the most resolution before their intervals
/// began to exclude no change more often (docs/results/h100.md, "Wild cycles").
constexpr double kWildCycleSpreads = 2.0;

/// Moves each wild cycle's difference in to the edge of the reach of its references, and returns
/// how many it moved. A cycle is wild when it lies more than kWildCycleSpreads x `spread` from both
/// the record's median difference `center` and the median of its own pair's other cycles. The
/// medians of order_balanced_median drop a wild cycle only where an order holds three or more, yet
/// most sizes stop at two cycles a pair (16 over 8 pairs) or four: there one round that landed in a
/// slow state moves its pair's figure by half or a quarter of its excess, and the interval with it.
/// A cycle that agrees with its own pair's other cycles is kept, whatever it reads: a pair of
/// workers that sits at another level (a placement drawn per process) shows the between-process
/// variance the interval is built on, and reining it in toward the record's median alone made false
/// verdicts of such records.
std::size_t rein_in_wild_cycles(std::map<std::pair<int, int>, std::vector<double>>& groups, double center,
                                double spread) {
  if (!(spread > 0)) return 0;
  const double reach = kWildCycleSpreads * spread;
  std::size_t moved = 0;
  for (auto& [key, d] : groups) {
    const std::vector<double> read = d;
    for (std::size_t i = 0; i < read.size(); ++i) {
      double low = center - reach, high = center + reach;
      if (read.size() >= 2) {
        std::vector<double> others;
        for (std::size_t j = 0; j < read.size(); ++j)
          if (j != i) others.push_back(read[j]);
        const double own = median(others);
        low = std::min(low, own - reach);
        high = std::max(high, own + reach);
      }
      d[i] = std::clamp(read[i], low, high);
      if (d[i] != read[i]) ++moved;
    }
  }
  return moved;
}
}  // namespace

namespace {
/// How far apart the builds' mean levels may lie before the adjustment stands aside: Student's t
/// on the groups' level differences, two-sided at this level (an A/A session stands aside about
/// once in a thousand).
constexpr double kLevelShiftAlpha = 0.001;

/// The log level difference (new - base) of each group's two workers, in the groups' order;
/// empty when some worker has no level.
std::vector<double> level_differences(const std::map<std::pair<int, int>, std::vector<double>>& groups,
                                      std::span<const double> base_levels, std::span<const double> next_levels) {
  std::vector<double> x;
  const auto known = [](std::span<const double> levels, int process) {
    return process >= 0 && static_cast<std::size_t>(process) < levels.size() && levels[process] > 0;
  };
  for (const auto& [key, d] : groups) {
    if (!known(base_levels, key.first) || !known(next_levels, key.second)) return {};
    x.push_back(std::log(next_levels[key.second]) - std::log(base_levels[key.first]));
  }
  return x;
}

/// Fits the group figures `f` on the level differences `x` by least squares, setting the center,
/// its variance factor and the variance about the line; false (nothing set) where the levels do not
/// vary between groups, or where the two builds' levels differ by more than chance allows
/// (kLevelShiftAlpha): the adjustment would then take out what the new build does to every
/// context, which its records show as they are.
bool adjust_for_levels(const std::vector<double>& f, const std::vector<double>& x, cycle_estimate& e) {
  const double g = static_cast<double>(f.size());
  const double fm = mean(f), xm = mean(x);
  double sxx = 0, sxf = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    sxx += (x[i] - xm) * (x[i] - xm);
    sxf += (x[i] - xm) * (f[i] - fm);
  }
  if (!(sxx > 0)) return false;
  const double shift_t = std::abs(xm) / std::sqrt(sxx / (g - 1) / g);
  if (shift_t > t_quantile_two_sided(kLevelShiftAlpha, static_cast<int>(f.size()) - 1)) return false;
  const double slope = sxf / sxx;
  double rss = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    const double r = f[i] - fm - slope * (x[i] - xm);
    rss += r * r;
  }
  e.level_slope = slope;
  e.center = fm - slope * xm;
  e.group_df = g - 2;
  e.group_var = rss / e.group_df;
  e.center_factor = 1 + g * xm * xm / sxx;
  return true;
}
}  // namespace

std::optional<cycle_estimate> paired_cycles(const side_estimate& base, const side_estimate& next,
                                            std::span<const double> base_levels, std::span<const double> next_levels) {
  // Each side's mean log round median per cycle, and the worker that measured it.
  struct cell {
    double sum = 0;
    int count = 0;
    int process = 0;
  };
  std::map<int, cell> b, n;
  const auto collect = [](const side_estimate& s, std::map<int, cell>& out) {
    for (std::size_t i = 0; i < s.round_logs.size(); ++i) {
      if (i >= s.round_cycle.size() || s.round_cycle[i] < 0) continue;
      cell& c = out[s.round_cycle[i]];
      c.sum += s.round_logs[i];
      c.count += 1;
      c.process = s.round_process[i];
    }
  };
  collect(base, b);
  collect(next, n);
  std::map<std::pair<int, int>, std::vector<double>> groups;
  std::vector<double> all;
  for (const auto& [cycle, cb] : b) {
    const auto it = n.find(cycle);
    if (it == n.end()) continue;
    all.push_back(it->second.sum / it->second.count - cb.sum / cb.count);
    groups[{cb.process, it->second.process}].push_back(all.back());
  }
  const std::size_t cycles = all.size();
  if (cycles < 2) return std::nullopt;
  cycle_estimate e;
  e.cycles = cycles;
  e.groups = groups.size();
  e.spread = kMadToSigma * mad(all);
  e.wild = rein_in_wild_cycles(groups, median(all), e.spread);
  std::vector<double> group_means;
  double ss = 0;
  for (const auto& [key, d] : groups) {
    const double m = mean(d);
    for (double x : d) ss += (x - m) * (x - m);
    group_means.push_back(order_balanced_median(d));
    e.mean_inv_n += 1.0 / static_cast<double>(d.size()) / static_cast<double>(groups.size());
  }
  e.center = mean(group_means);
  if (cycles > e.groups) e.resid_var = ss / static_cast<double>(cycles - e.groups);
  if (e.groups >= 2) {
    e.group_var = sample_sd(group_means) * sample_sd(group_means);
    e.group_df = static_cast<double>(e.groups - 1);
  }
  e.noise_var = base.noise_var + next.noise_var;
  if (e.groups >= kMinAdjustedGroups && !base_levels.empty() && !next_levels.empty())
    if (const std::vector<double> x = level_differences(groups, base_levels, next_levels); !x.empty())
      adjust_for_levels(group_means, x, e);
  return e;
}

std::optional<double> paired_round_sd(const side_estimate& base, const side_estimate& next) {
  if (base.round_logs.size() < 2 || base.round_logs.size() != next.round_logs.size()) return std::nullopt;
  std::vector<double> d(base.round_logs.size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = next.round_logs[i] - base.round_logs[i];
  return sample_sd(d);
}

double process_noise_model::sd(time_source source, bytes_path path, const side_estimate& s) const {
  if (source == time_source::host_wall) return std::max(floor_host, round_factor_host * s.round_sd);
  if (path == bytes_path::peer || path == bytes_path::peer_duplex)
    return std::max(floor_peer, round_factor_peer * s.round_sd);
  if (path == bytes_path::pcie || path == bytes_path::pcie_duplex)
    return std::max(floor_pcie, round_factor_pcie * s.round_sd);
  return std::max({floor_device, floor_device_abs_s / std::exp(s.center), round_factor_device * s.round_sd});
}

std::vector<double> round_log_speedups(const timing_data& baseline, const timing_data& variant) {
  if (baseline.rounds.size() < 2 || baseline.rounds.size() != variant.rounds.size()) return {};
  const std::vector<double> b = round_log_medians(baseline.samples_s, baseline.rounds);
  const std::vector<double> v = round_log_medians(variant.samples_s, variant.rounds);
  if (b.size() != baseline.rounds.size() || v.size() != b.size()) return {};
  std::vector<double> out(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) out[i] = b[i] - v[i];
  return out;
}

}  // namespace gpubench::detail
namespace gpubench::detail {

// Fitted by scripts/analysis/fit-noise-model.py on runs of identical code in separate processes:
// each floor is the largest "gate floor" (no false verdict in any ordered pair of a set) over every
// set, rounded up. The fit, its data and why device-timed records have no round factor:
// docs/measurement.md, "The process floors".
process_noise_model process_noise_model::fitted() {
  process_noise_model m;
  m.floor_device = 0.008;
  m.round_factor_device = 0.0;
  m.floor_device_abs_s = 50e-9;
  m.floor_host = 0.14;
  m.round_factor_host = 1.0;
  m.floor_peer = 0.12;
  m.round_factor_peer = 1.0;
  m.floor_pcie = 0.04;
  m.round_factor_pcie = 1.0;
  return m;
}

}  // namespace gpubench::detail
