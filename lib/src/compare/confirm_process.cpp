// `run --confirm BASE.json`: each record compare would call slower (or might) is measured again,
// alone, by a fresh `gpubench run` process (this executable, started without a shell), and its
// rounds join the record's before the profile is written (gpubench/confirm.hpp says why).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "process/spawn.hpp"
#include "gpubench/compare.hpp"
#include "gpubench/confirm.hpp"
#include "gpubench/error.hpp"
#include "gpubench/format.hpp"
#include "gpubench/profile.hpp"

namespace gpubench {

namespace fs = std::filesystem;

std::vector<std::string> confirm_child_args(const record& r, int device, const run_options& o, const std::string& out) {
  std::vector<std::string> args = {"run", "--pair", fmt::format("ch{:02d}/{}", r.chapter, r.pair)};
  for (const auto& [name, value] : r.size.entries()) args.insert(args.end(), {"--axis", name + "=" + to_string(value)});
  args.insert(args.end(), {"--variant", r.variant, "--out", out, "--quiet", "--device", std::to_string(device)});
  args.insert(args.end(), {"--seed", std::to_string(o.seed), "--rounds", std::to_string(o.rounds)});
  args.insert(args.end(), {"--max-rounds", std::to_string(std::max(o.rounds, o.max_rounds))});
  args.insert(args.end(), {"--max-noise", fmt::format("{:g}", o.stopping.max_noise * 100)});
  args.insert(args.end(), {"--min-samples", std::to_string(o.stopping.min_samples)});
  args.insert(args.end(), {"--min-time", fmt::format("{:g}", o.stopping.min_time_s)});
  args.insert(args.end(), {"--timeout", fmt::format("{:g}", o.stopping.timeout_s)});
  args.insert(args.end(), {"--rest", fmt::format("{:g}", o.rest_ratio)});
  if (o.gpu_busy_time) args.emplace_back("--gpu-busy");
  return args;
}

namespace {

record* find_record(profile& p, const std::string& id) {
  for (record& r : p.records)
    if (r.id() == id) return &r;
  return nullptr;
}

// Speedups and floors follow the merged medians: every record of a touched size is derived again
// against that size's baseline (its first record, as the runner made it). So do a tuning pair's
// ranks: the runner wrote a size's records consecutively, and the re-measured configuration may
// now be the best, or no longer.
void derive_again(profile& p, const record& touched) {
  record* baseline = nullptr;
  std::size_t first = p.records.size(), end = 0;
  for (std::size_t i = 0; i < p.records.size(); ++i) {
    record& r = p.records[i];
    if (r.chapter != touched.chapter || r.pair != touched.pair || !(r.size == touched.size)) continue;
    derive(r, p.ceil, baseline);
    if (baseline == nullptr) baseline = &r;
    first = std::min(first, i);
    end = i + 1;
  }
  if (first < end) rank_tuning(std::span<record>(p.records).subspan(first, end - first));
}

}  // namespace

std::vector<std::string> confirm_regressions(profile& prof, const profile& base, const std::string& base_path,
                                             int device, const run_options& o, std::FILE* report) {
  comparison before;
  try {
    before = compare_profiles(base, prof, compare_options{}, base_path, "this run");
  } catch (const error& e) {
    fmt::print(report, "confirm: not compared with {}: {}\n", base_path, e.what());
    return {};
  }
  const std::vector<confirm_target> targets = confirm_targets(before);
  if (targets.empty()) {
    fmt::print(report, "confirm: against {}, no record is slower or near the {:g}% threshold: nothing to re-measure\n",
               base_path, compare_options{}.threshold * 100);
    return {};
  }
  fmt::print(report, "confirm: {} record{} slower or near the threshold against {}; re-measuring each alone in a fresh "
                     "process\n", targets.size(), targets.size() == 1 ? "" : "s", base_path);
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw runtime_error("confirm: cannot find this gpubench executable (/proc/self/exe): " + ec.message());
  const detail::private_dir scratch;

  std::vector<std::string> confirmed;
  std::map<std::string, std::string> why_of;
  for (std::size_t k = 0; k < targets.size(); ++k) {
    const confirm_target& t = targets[k];
    why_of[t.id] = t.why;
    record* rec = find_record(prof, t.id);
    if (rec == nullptr) continue;  // compare only judges records this profile has
    const fs::path out = scratch.path() / fmt::format("confirm-{}.json", k);
    const fs::path log = scratch.path() / fmt::format("confirm-{}.log", k);
    fmt::print(report, "  [{}/{}] {} ({})", k + 1, targets.size(), t.id, t.why);
    std::fflush(report);
    const detail::program_result pr = detail::run_program(self, confirm_child_args(*rec, device, o, out.string()), log);
    if (!pr.started || pr.exit_code != 0) {
      fmt::print(report, ": the confirmation process {}; kept as measured (log: see below)\n",
                 !pr.started ? pr.error : pr.signal ? fmt::format("ended by signal {}", pr.signal)
                                                    : fmt::format("exited {}", pr.exit_code));
      std::FILE* f = std::fopen(log.c_str(), "r");
      for (char line[512]; f != nullptr && std::fgets(line, sizeof line, f) != nullptr;) fmt::print(report, "      {}", line);
      if (f != nullptr) std::fclose(f);
      if (pr.signal == 2 || pr.exit_code == 130) throw error(exit_code::interrupted, "interrupted while confirming");
      continue;
    }
    try {
      profile child = read_profile(out);
      const record* again = find_record(child, t.id);
      if (again == nullptr) throw usage_error("the confirmation profile has no record " + t.id);
      const double was = rec->stats->median;
      merge_confirmation(*rec, *again, 1);
      derive_again(prof, *rec);
      fmt::print(report, ": alone {} (was {}), {} rounds in all\n", format_duration(again->stats->median),
                 format_duration(was), rec->timing.rounds.size());
      confirmed.push_back(t.id);
    } catch (const error& e) {
      fmt::print(report, ": not merged: {}\n", e.what());
    }
  }
  if (confirmed.empty()) return confirmed;

  // What compare says now, record by record: the verdicts the confirmation changed.
  const comparison after = compare_profiles(base, prof, compare_options{}, base_path, "this run");
  std::size_t still = 0;
  for (const std::string& id : confirmed)
    for (const record_comparison& r : after.records)
      if (r.id == id) {
        still += r.result == verdict::slower;
        fmt::print(report, "  {}: {} → {} {:+.1f}% [{:+.1f}, {:+.1f}]\n", id, why_of[id], to_string(r.result),
                   (r.ratio.estimate - 1) * 100, (r.ratio.low - 1) * 100, (r.ratio.high - 1) * 100);
      }
  fmt::print(report, "confirm: {} of {} still slower with the confirmation's rounds; `gpubench compare {} <this profile>` "
                     "judges the union\n", still, confirmed.size(), base_path);
  return confirmed;
}

}  // namespace gpubench
