// Ranking a fleet's GPUs against its median, record by record (gpubench/fleet.hpp says how and
// why; docs/fleet.md shows what it resolves).
#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <set>

#include <fmt/format.h>

#include "gpubench/compare.hpp"
#include "gpubench/error.hpp"
#include "gpubench/fleet.hpp"
#include "gpubench/stats.hpp"

namespace gpubench {

const char* to_string(fleet_flag f) {
  switch (f) {
    case fleet_flag::slow: return "slow";
    case fleet_flag::fast: return "fast";
    case fleet_flag::none: break;
  }
  return "none";
}

namespace {

/// One GPU's side of a record, in log seconds, as compare reduces a profile's record: the mean
/// of the rounds' log medians, with the variance the rounds show over their count, at least the
/// samples' own (the squared relative noise of the median).
struct side {
  bool usable = false;
  double center = 0;
  double var = 0;
};

side side_of(const record& r) {
  side s;
  const auto& x = r.timing.samples_s;
  if (r.status != record_status::passed || x.empty()) return s;
  for (const double v : x)
    if (!(v > 0) || !std::isfinite(v)) return s;
  std::vector<double> logs;
  std::size_t at = 0;
  for (const auto& round : r.timing.rounds) {
    if (round.samples == 0 || at + round.samples > x.size()) break;
    logs.push_back(std::log(median(std::span<const double>(x).subspan(at, round.samples))));
    at += round.samples;
  }
  if (logs.empty() || at != x.size()) logs.assign(1, std::log(median(x)));  // one round (or rounds that do not add up)
  const double noise = median_rel_noise(x);
  if (!std::isfinite(noise)) return s;  // fewer than three samples: no noise estimate to rank with
  double mean = 0;
  for (const double l : logs) mean += l;
  mean /= double(logs.size());
  double between = 0;
  if (logs.size() > 1) {
    for (const double l : logs) between += (l - mean) * (l - mean);
    between /= double(logs.size() - 1) * double(logs.size());  // the variance of the mean of the rounds
  }
  s.usable = true;
  s.center = mean;
  s.var = std::max(between, noise * noise);
  return s;
}

void rank_one_model(fleet_group& g, const fleet_options& o, const std::vector<const profile*>& profiles) {
  // The records, in the first GPU's order, then any a later GPU adds.
  std::map<std::string, std::size_t> index;
  for (const profile* p : profiles)
    for (const record& r : p->records) {
      const std::string id = r.id();
      if (index.count(id) != 0) continue;
      index[id] = g.records.size();
      fleet_record fr;
      fr.id = id;
      if (r.floor) fr.bound = r.floor->bound;
      g.records.push_back(std::move(fr));
    }
  g.cells.assign(g.gpus.size(), std::vector<fleet_cell>(g.records.size()));
  std::vector<std::vector<side>> sides(g.gpus.size(), std::vector<side>(g.records.size()));
  for (std::size_t gi = 0; gi < g.gpus.size(); ++gi)
    for (const record& r : profiles[gi]->records) {
      const std::size_t ri = index.at(r.id());
      sides[gi][ri] = side_of(r);
      fleet_cell& c = g.cells[gi][ri];
      c.present = r.status == record_status::passed && r.stats.has_value();
      if (c.present) c.median_s = r.stats->median;
      if (g.records[ri].bound.empty() && r.floor) g.records[ri].bound = r.floor->bound;
    }

  std::size_t cells = 0;
  for (std::size_t ri = 0; ri < g.records.size(); ++ri) {
    std::size_t n = 0;
    for (std::size_t gi = 0; gi < g.gpus.size(); ++gi) n += sides[gi][ri].usable ? 1 : 0;
    g.records[ri].gpus = n;
    if (n >= o.min_gpus) cells += n;
  }
  if (g.gpus.size() < o.min_gpus) {
    g.not_ranked = fmt::format("{} GPU{} of this model; ranking needs at least {}", g.gpus.size(),
                               g.gpus.size() == 1 ? "" : "s", o.min_gpus);
    // Too few GPUs for a spread to rank against, but enough to say which is slower than the
    // others: each one's ratio to their median, without an interval and never flagged.
    for (std::size_t ri = 0; ri < g.records.size(); ++ri) {
      if (g.records[ri].gpus < 2) continue;
      std::vector<double> centers;
      for (std::size_t gi = 0; gi < g.gpus.size(); ++gi)
        if (sides[gi][ri].usable) centers.push_back(sides[gi][ri].center);
      const double m = median(centers);
      g.records[ri].median_s = std::exp(m);
      for (std::size_t gi = 0; gi < g.gpus.size(); ++gi) {
        if (!sides[gi][ri].usable) continue;
        fleet_cell& c = g.cells[gi][ri];
        c.relative = true;
        c.ratio = c.low = c.high = std::exp(sides[gi][ri].center - m);
      }
    }
    return;
  }
  if (cells == 0) return;
  for (std::size_t ri = 0; ri < g.records.size(); ++ri) {
    fleet_record& rec = g.records[ri];
    if (rec.gpus < o.min_gpus) continue;
    std::vector<double> centers, vars;
    for (std::size_t gi = 0; gi < g.gpus.size(); ++gi)
      if (sides[gi][ri].usable) {
        centers.push_back(sides[gi][ri].center);
        vars.push_back(sides[gi][ri].var);
      }
    const double m = median(centers);
    const double s = kMadToSigma * mad(centers);
    rec.median_s = std::exp(m);
    rec.spread = s;
    // The fleet's spread holds each GPU's within-run noise once; what is left over is what moves a
    // record between processes and chips, the term one run cannot show (compare's process floor).
    const double between = std::max(s * s - median(vars), 0.0);
    const double var_median = std::numbers::pi / 2 * s * s / double(centers.size());
    const double t = detail::t_quantile_two_sided(o.alpha / double(cells), int(centers.size()) - 1);
    g.t = t;
    for (std::size_t gi = 0; gi < g.gpus.size(); ++gi) {
      const side& sd = sides[gi][ri];
      if (!sd.usable) continue;
      fleet_cell& c = g.cells[gi][ri];
      const double d = sd.center - m;
      const double half = t * std::sqrt(sd.var + between + var_median);
      c.ranked = true;
      c.ratio = std::exp(d);
      c.low = std::exp(d - half);
      c.high = std::exp(d + half);
      if (d > std::log1p(o.band) && d - half > 0) c.flag = fleet_flag::slow;
      else if (d < -std::log1p(o.band) && d + half < 0) c.flag = fleet_flag::fast;
    }
  }
}

}  // namespace

std::size_t fleet_group::flagged_cells() const {
  std::size_t n = 0;
  for (const auto& row : cells)
    for (const auto& c : row) n += c.flag != fleet_flag::none ? 1 : 0;
  return n;
}

std::vector<std::size_t> fleet_group::flagged_gpus() const {
  std::vector<std::size_t> out;
  for (std::size_t gi = 0; gi < cells.size(); ++gi)
    if (std::any_of(cells[gi].begin(), cells[gi].end(), [](const fleet_cell& c) { return c.flag != fleet_flag::none; }))
      out.push_back(gi);
  return out;
}

double fleet_group::overall_ratio(std::size_t gpu) const {
  double sum = 0;
  std::size_t n = 0;
  for (const auto& c : cells.at(gpu))
    if (c.ranked || c.relative) {
      sum += std::log(c.ratio);
      ++n;
    }
  return n == 0 ? 1.0 : std::exp(sum / double(n));
}

std::vector<fleet_group::listed_gpu> fleet_group::slowest_first(std::size_t farthest) const {
  const bool relative = std::any_of(cells.begin(), cells.end(), [](const auto& row) {
    return std::any_of(row.begin(), row.end(), [](const fleet_cell& c) { return c.relative; });
  });
  if (!relative) return {};
  std::vector<listed_gpu> out;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    listed_gpu l{.gpu = i, .farthest = {}};
    for (std::size_t k = 0; k < records.size(); ++k)
      if (cells[i][k].relative) l.farthest.push_back(k);
    std::sort(l.farthest.begin(), l.farthest.end(), [&](std::size_t a, std::size_t b) {
      return std::abs(std::log(cells[i][a].ratio)) > std::abs(std::log(cells[i][b].ratio));
    });
    if (l.farthest.size() > farthest) l.farthest.resize(farthest);
    out.push_back(std::move(l));
  }
  std::stable_sort(out.begin(), out.end(), [&](const listed_gpu& a, const listed_gpu& b) {
    return overall_ratio(a.gpu) > overall_ratio(b.gpu);
  });
  return out;
}

std::size_t fleet_ranking::gpu_count() const {
  std::size_t n = 0;
  for (const auto& g : groups) n += g.gpus.size();
  return n;
}

std::string node_of_task(const fleet_manifest& m, int task) {
  if (m.tasks_per_node.size() != m.nodes.size() || task < 0) return {};
  int first = 0;
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    if (task < first + m.tasks_per_node[i]) return m.nodes[i];
    first += m.tasks_per_node[i];
  }
  return {};
}

fleet_ranking rank_fleet(const fleet_job& job, const fleet_options& o) {
  if (!(o.band > 0 && o.band < 10))
    throw usage_error(fmt::format("--band {}%: expected a percentage above 0", o.band * 100));
  if (!(o.alpha > 0 && o.alpha < 1))
    throw usage_error(fmt::format("--alpha {}: expected a probability in (0, 1)", o.alpha));
  if (o.min_gpus < 3) throw usage_error("a fleet is ranked against at least 3 GPUs of a model");
  fleet_ranking out;
  out.job_id = job.job_id;
  out.options = o;
  out.unreadable = job.unreadable;
  out.failures = job.failures;
  out.stored = job.results.size();

  // Group by model; the same GPU (UUID) twice in a job would count twice in the median: the second
  // is left out and said so.
  std::map<std::string, std::size_t> group_of;
  std::vector<std::vector<const profile*>> profiles;
  std::set<std::string> uuids;
  for (const fleet_result& r : job.results) {
    if (!r.tags.gpu_uuid.empty() && !uuids.insert(r.tags.gpu_uuid).second) {
      out.unreadable.push_back(
          fmt::format("{}: GPU {} already reported by another task of this job; left out", r.source, r.tags.gpu_uuid));
      continue;
    }
    const std::string model = r.prof.prov.device.name.empty() ? std::string("(unnamed GPU)") : r.prof.prov.device.name;
    auto [it, added] = group_of.emplace(model, out.groups.size());
    if (added) {
      out.groups.push_back({});
      out.groups.back().model = model;
      profiles.emplace_back();
    }
    out.groups[it->second].gpus.push_back({r.tags, r.source});
    profiles[it->second].push_back(&r.prof);
  }
  for (std::size_t i = 0; i < out.groups.size(); ++i) rank_one_model(out.groups[i], o, profiles[i]);
  std::stable_sort(out.groups.begin(), out.groups.end(),
                   [](const fleet_group& a, const fleet_group& b) { return a.gpus.size() > b.gpus.size(); });

  if (job.manifest) {
    out.expected_tasks = job.manifest->tasks;
    out.nodes = job.manifest->nodes;
    std::set<int> seen;
    for (const auto& r : job.results) seen.insert(r.tags.task);
    for (const auto& f : job.failures) seen.insert(f.tags.task);
    for (int t = 0; t < job.manifest->tasks; ++t)
      if (seen.count(t) == 0) out.missing.push_back({t, node_of_task(*job.manifest, t)});
    std::set<std::string> reporting;
    for (const auto& r : job.results) reporting.insert(r.tags.node);
    for (const auto& n : job.manifest->nodes)
      if (reporting.count(n) == 0) out.silent_nodes.push_back(n);
  }
  return out;
}

}  // namespace gpubench
