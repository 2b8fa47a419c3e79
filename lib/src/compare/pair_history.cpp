// Earlier `ab` sessions' spread between pairs of workers; see gpubench/pair_history.hpp.
#include "gpubench/pair_history.hpp"

#include <cmath>

#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "gpubench/escape.hpp"
#include "gpubench/input_file.hpp"
#include "gpubench/moderated_variance.hpp"
#include "compare/intervals.hpp"
#include "gpubench/strict_json.hpp"

namespace gpubench {

namespace {

using ojson = nlohmann::ordered_json;

constexpr double kMaxPairsDf = kAbMaxWorkersPerBuild - 1;  // a session's pairs of workers, less one

/// The string at `key` of `j`, or a usage error naming the file and the field.
std::string text_at(const ojson& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_string())
    throw usage_error(fmt::format("{}: no \"{}\" string", where, key));
  return j.at(key).get<std::string>();
}

time_source figure_of(const std::string& name, const std::string& where) {
  for (time_source s :
       {time_source::gpu_busy, time_source::cuda_events, time_source::host_wall, time_source::cuda_events_net})
    if (name == to_string(s)) return s;
  throw usage_error(
      fmt::format("{}: judged_on \"{}\" is none of gpu_busy, cuda_events, cuda_events_net, host_wall", where, name));
}

/// One session's between_pairs of a record.
struct session_spread {
  double var = 0, df = 0;
  bool context_adjusted = false;
};

/// One record's between_pairs, or nothing where the session did not measure it (null). Its df is
/// the pairs of workers less one, or less two about the line on the context levels.
std::optional<session_spread> spread_of(const ojson& r, const std::string& where) {
  if (!r.contains("between_pairs") || r.at("between_pairs").is_null()) return std::nullopt;
  const ojson& b = r.at("between_pairs");
  if (!b.is_object() || !b.contains("var") || !b.contains("df") || !b.at("var").is_number() || !b.at("df").is_number())
    throw usage_error(fmt::format("{}: between_pairs must be null or an object with numbers var and df", where));
  const double var = b.at("var").get<double>(), df = b.at("df").get<double>();
  if (!std::isfinite(var) || var < 0)
    throw usage_error(
        fmt::format("{}: between_pairs.var is {}; a variance is a finite number of at least 0", where, var));
  if (!(df >= 1 && df <= kMaxPairsDf && df == std::floor(df)))
    throw usage_error(
        fmt::format("{}: between_pairs.df is {}; it is the pairs of workers less one or two, a whole number "
                    "from 1 to {}",
                    where, df, kMaxPairsDf));
  bool adjusted = false;
  if (b.contains("context_adjusted")) {
    if (!b.at("context_adjusted").is_boolean())
      throw usage_error(fmt::format("{}: between_pairs.context_adjusted must be true or false", where));
    adjusted = b.at("context_adjusted").get<bool>();
  }
  return session_spread{var, df, adjusted};
}

/// What one session's spread of a host-timed record weighs, as a share of its degrees of freedom
/// (its pairs of workers less one). Host-driven records' spreads between pairs scatter from session
/// to session beyond their degrees of freedom: over the A/A sessions kept from earlier leases, a
/// host-timed record's log spread varied between the sessions of one lease as a chi^2 on 3.2
/// degrees of freedom would, where eight workers give 7, and device-timed records' on 5.1. Weighed
/// in full, same-lease history made chapter 1's intervals exclude no change in 7 of 37 sessions
/// where chance allows about 2; at half, in 3 (docs/results/h100.md, "History of host-timed
/// records"). Device-timed records' intervals kept their rate at full weight.
constexpr double kHostSessionWeight = 0.5;

/// The level at which a record's sessions count as disagreeing (variances_differ).
constexpr double kDifferLevel = 0.01;

/// Bartlett's test that the sessions' variances are one variance's estimates (Bartlett, "Properties
/// of sufficiency and statistical tests", Proc. R. Soc. A 160, 1937): whether its statistic, chi^2
/// with k - 1 degrees of freedom, lies beyond the 1 - `level` quantile (Wilson-Hilferty).
bool variances_differ(std::span<const double> vars, std::span<const double> dfs, double level) {
  const double k = static_cast<double>(vars.size());
  double n = 0, pooled = 0, sum_log = 0, sum_inv = 0;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    n += dfs[i];
    pooled += dfs[i] * vars[i];
  }
  pooled /= n;
  if (!(pooled > 0)) return false;
  const double floor = 1e-5 * pooled;  // a session of exactly zero spread: raised, as the prior fit does
  for (std::size_t i = 0; i < vars.size(); ++i) {
    sum_log += dfs[i] * std::log(std::max(vars[i], floor));
    sum_inv += 1 / dfs[i];
  }
  const double stat = (n * std::log(pooled) - sum_log) / (1 + (sum_inv - 1 / n) / (3 * (k - 1)));
  const double nu = k - 1, z = detail::normal_quantile(1 - level);
  const double c = 1 - 2 / (9 * nu) + z * std::sqrt(2 / (9 * nu));
  return stat > nu * c * c * c;
}

}  // namespace

pair_history read_pair_history(std::span<const std::filesystem::path> files) {
  pair_history h;
  std::map<std::string, std::string> file_of_session;
  // Pooled as sums first: sum(df * var) and sum(df), by record; each session's estimate kept too.
  std::map<std::string, pair_spread> sums;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> each;  // (vars, dfs)
  for (const std::filesystem::path& path : files) {
    const std::string name = path.string();
    const std::string text = read_input_file(path, "ab comparison");
    const ojson j = parse_strict_json(text, name);
    if (!j.is_object() || !j.contains("records") || !j.at("records").is_array())
      throw usage_error(
          fmt::format("{}: not a comparison; --history takes earlier `gpubench ab --json` outputs", name));
    if (!j.contains("ab_session") || !j.at("ab_session").is_string() || j.at("ab_session").get<std::string>().empty())
      throw usage_error(fmt::format("{}: not one `ab` session's comparison (no ab_session); --history takes earlier "
                                    "`gpubench ab --json` outputs of this gpubench or newer",
                                    name));
    const std::string session = j.at("ab_session").get<std::string>();
    h.session_ids.insert(session);
    if (const auto [it, fresh] = file_of_session.emplace(session, name); !fresh)
      throw usage_error(fmt::format("{} and {} hold the same ab session ({}): give each session once, or its spread "
                                    "counts twice",
                                    it->second, name, session));
    const ojson devices = j.contains("devices") ? j.at("devices") : ojson();
    const std::string base = text_at(devices, "base", name + ": devices"),
                      next = text_at(devices, "new", name + ": devices");
    if (base != next)
      throw usage_error(
          fmt::format("{}: its two builds ran on {} and {}; an ab session runs both on one GPU", name, base, next));
    if (h.gpu_model.empty()) h.gpu_model = base;
    else if (base != h.gpu_model)
      throw usage_error(fmt::format("{} ran on {}, the files before it on {}: give --history sessions of one GPU model",
                                    name, base, h.gpu_model));
    std::set<std::string> seen;
    for (const ojson& r : j.at("records")) {
      const std::string id = text_at(r, "id", name + ": a record");
      const std::string where = fmt::format("{}: record {}", name, id);
      if (!seen.insert(id).second) throw usage_error(fmt::format("{}: appears twice", where));
      const time_source figure = figure_of(text_at(r, "judged_on", where), where);
      const auto spread = spread_of(r, where);
      if (!spread) continue;
      pair_spread& s = sums[id];
      auto& [vars, dfs] = each[id];
      const bool adjusted = spread->context_adjusted;
      // Judged on another figure now, or about the line on the context levels where it was about
      // the mean (or the other way): the newer sessions count.
      if (s.sessions > 0 && (s.figure != figure || s.context_adjusted != adjusted)) {
        s = {};
        vars.clear();
        dfs.clear();
      }
      s.figure = figure;
      s.context_adjusted = adjusted;
      s.var += spread->df * spread->var;
      s.df += spread->df;
      vars.push_back(spread->var);
      dfs.push_back(spread->df);
      ++s.sessions;
    }
    ++h.sessions;
  }
  for (auto& [id, s] : sums) {
    s.var /= s.df;
    if (s.figure == time_source::host_wall) s.df *= kHostSessionWeight;
    // The sessions count as one variance's estimates only as far as they agree. Where they scatter
    // more than their own degrees of freedom explain (a record whose between-process level is
    // drawn with the lease, as PCIe copies' pinned memory is), the prior fitted to them weighs only
    // what their scatter allows, and a session far outside them then rests on its own pairs. The
    // fit from three to eight sessions is itself noisy, so it applies only where Bartlett's test
    // finds them differing at 1%: sessions that agree within chance keep every degree of freedom.
    const auto& [vars, dfs] = each.at(id);
    if (vars.size() >= 2 && variances_differ(vars, dfs, kDifferLevel))
      s.df = std::min(s.df, fit_variance_prior(vars, dfs).df0);
    h.records.emplace(id, s);
  }
  return h;
}

pair_history_use use_pair_history(const pair_history& h, const std::string& gpu) {
  const char* plural = h.sessions == 1 ? "" : "s";
  if (h.gpu_model != gpu)
    return {{},
            fmt::format("history: left out, its {} session{} ran on {}, this one on {}", h.sessions, plural,
                        terminal_text(h.gpu_model), terminal_text(gpu))};
  return {h.records, fmt::format("history: {} earlier session{} of {}; each record they measured weighs their "
                                 "spread between pairs of workers",
                                 h.sessions, plural, terminal_text(gpu))};
}

}  // namespace gpubench
