// One record's interval from its levels of variance; see record_interval.hpp.
#include "compare/record_interval.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpubench::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The variance terms of one interval, by the level they come from, for naming the largest.
struct parts {
  double noise = 0, rounds = 0, process = 0, floor = 0;
  [[nodiscard]] limiting_term largest() const {
    limiting_term t = limiting_term::within_round;
    double best = noise;
    if (rounds > best) best = rounds, t = limiting_term::between_rounds;
    if (process > best) best = process, t = limiting_term::between_processes;
    if (floor > best) t = limiting_term::floor;
    return t;
  }
};

/// Splits a within-run variance into the samples' noise and what the rounds add beyond it.
void split_within(double within, double noise, parts& p) {
  const double n = std::min(within, noise);
  p.noise += n;
  p.rounds += within - n;
}

/// One side with rounds from several processes: the moderated spread of its process means over
/// their count, at least its samples' noise. Returns the variance and its degrees of freedom.
std::pair<double, double> processes_side(const side_estimate& s, const variance_prior& prior, parts& p) {
  const double count = static_cast<double>(s.processes);
  const double df = count - 1;
  const double v = std::max(moderate_variance(s.process_var, df, prior) / count, s.noise_var);
  // A process mean carries its rounds' spread too: that much of v is the rounds', the rest the processes'.
  const double rounds_part = std::min(v, s.round_sd * s.round_sd / static_cast<double>(s.rounds));
  split_within(rounds_part, s.noise_var, p);
  p.process += v - rounds_part;
  return {v, moderated_df(df, prior)};
}

}  // namespace

const char* to_string(process_evidence e) {
  switch (e) {
    case process_evidence::prior: return "prior";
    case process_evidence::history: return "history";
    case process_evidence::processes: return "processes";
    case process_evidence::cycles: return "cycles";
  }
  return "prior";
}

void choose_evidence(record_levels& l) {
  if (l.cycles) l.evidence = process_evidence::cycles;
  else if (l.base.processes >= 2 || l.next.processes >= 2) l.evidence = process_evidence::processes;
  else if (l.history_runs >= 3) l.evidence = process_evidence::history;
  else l.evidence = process_evidence::prior;
}

std::vector<std::pair<double, double>> raw_process_estimates(const record_levels& l) {
  std::vector<std::pair<double, double>> out;
  switch (l.evidence) {
    case process_evidence::cycles:
      if (l.cycles->groups >= 2) out.emplace_back(l.cycles->group_var, l.cycles->group_df);
      break;
    case process_evidence::processes:
      for (const side_estimate* s : {&l.base, &l.next})
        if (s->processes >= 2) out.emplace_back(s->process_var, static_cast<double>(s->processes - 1));
      break;
    case process_evidence::history: out.emplace_back(l.history_var, static_cast<double>(l.history_runs - 1)); break;
    case process_evidence::prior: break;
  }
  return out;
}

log_interval interval_of(const record_levels& l, const variance_prior& prior) {
  log_interval out;
  parts p;
  double total = 0;
  switch (l.evidence) {
    case process_evidence::cycles: {
      const cycle_estimate& c = *l.cycles;
      const double n = static_cast<double>(c.cycles);
      out.center = c.center;
      if (c.groups >= 2) {
        const double g = static_cast<double>(c.groups);
        const double df = c.group_df;
        total = std::max(moderate_variance(c.group_var, df, prior) * c.center_factor / g, c.noise_var);
        out.df = moderated_df(df, prior);
        // A group mean carries its cycles' own spread: that part of the total is the rounds'.
        const double within = std::min(total, c.resid_var * c.mean_inv_n / g);
        split_within(within, c.noise_var, p);
        p.process = total - within;
        out.fixed_sd = std::sqrt(p.process);
      } else {
        // One pair of workers: the cycles measure everything but the workers' own offsets, which
        // the floors stand for.
        const double within = std::max(c.resid_var / n, c.noise_var);
        const double floors = l.floor_base * l.floor_base + l.floor_next * l.floor_next;
        total = within + floors;
        const double vars[] = {within, floors}, dfs[] = {n - 1, kInf};
        out.df = satterthwaite_df(vars, dfs);
        split_within(within, c.noise_var, p);
        p.floor = floors;
        out.fixed_sd = std::sqrt(floors);
      }
      break;
    }
    case process_evidence::processes: {
      out.center = l.next.center - l.base.center;
      double vars[2], dfs[2];
      double fixed = 0;
      const side_estimate* sides[2] = {&l.base, &l.next};
      const double models[2] = {l.model_base, l.model_next};
      for (int i = 0; i < 2; ++i) {
        const side_estimate& s = *sides[i];
        parts measured = p;
        double v = 0, v_df = kInf;
        if (s.processes >= 2) std::tie(v, v_df) = processes_side(s, prior, measured);
        if (s.processes >= 2 && !(l.keeps_model_term && s.var_center + models[i] * models[i] > v)) {
          vars[i] = v;
          dfs[i] = v_df;
          fixed += measured.process - p.process;
          p = measured;
        } else {
          const double m2 = models[i] * models[i];
          vars[i] = s.var_center + m2;
          dfs[i] = kInf;
          split_within(s.var_center, s.noise_var, p);
          p.floor += m2;
          fixed += m2;
        }
      }
      total = vars[0] + vars[1];
      out.df = satterthwaite_df(vars, dfs);
      out.fixed_sd = std::sqrt(fixed);
      break;
    }
    case process_evidence::history: {
      out.center = l.next.center - l.base.center;
      const double df = static_cast<double>(l.history_runs - 1);
      double drift = 2 * moderate_variance(l.history_var, df, prior);
      double drift_df = moderated_df(df, prior);
      const double model = l.model_base * l.model_base + l.model_next * l.model_next;
      const bool floored = l.keeps_model_term && model > drift;
      if (floored) drift = model, drift_df = kInf;
      total = l.within_var + drift;
      const double vars[] = {l.within_var, drift}, dfs[] = {kInf, drift_df};
      out.df = satterthwaite_df(vars, dfs);
      split_within(l.within_var, l.noise_var, p);
      (floored ? p.floor : p.process) = drift;
      out.fixed_sd = std::sqrt(drift);
      break;
    }
    case process_evidence::prior: {
      out.center = l.next.center - l.base.center;
      const double floors = l.model_base * l.model_base + l.model_next * l.model_next;
      total = l.within_var + floors;
      out.df = kInf;
      split_within(l.within_var, l.noise_var, p);
      p.floor = floors;
      out.fixed_sd = std::sqrt(l.floor_base * l.floor_base + l.floor_next * l.floor_next);
      break;
    }
  }
  out.sd = std::sqrt(total);
  out.limit = p.largest();
  return out;
}

}  // namespace gpubench::detail
