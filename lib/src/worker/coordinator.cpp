// Runs that span worker processes; see gpubench/coordinator.hpp.
#include "gpubench/coordinator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <exception>
#include <map>
#include <optional>

#include "compare/noise_model.hpp"
#include "gpubench/compare.hpp"
#include "gpubench/error.hpp"
#include "gpubench/stats.hpp"

namespace gpubench {

namespace {

using ojson = nlohmann::ordered_json;

int round_up(int n, int step) { return (n + step - 1) / step * step; }

/// The share of a record's variance that twice the cycles must remove for more to be taken
/// (more_cycles_help).
constexpr double kWorthMore = 0.1;

/// A size whose rounds are cheap goes on past ab_plan::max_cycles, up to kCheapCyclesFactor times
/// as many, while more cycles help and its rounds with one more sweep fit in kCheapShare of its
/// budget. Twice the cycles narrow a cycle-limited interval by the same 29% whatever a cycle costs,
/// so the session's seconds buy the most where cycles are cheapest: chapter 1's graph and stream
/// launches and its small copies double theirs for a few seconds (docs/measurement.md, "Cheap
/// sizes").
constexpr int kCheapCyclesFactor = 2;
constexpr double kCheapShare = 0.25;

/// The fewest pairs of workers a size over its budget is measured on (over_budget): three processes
/// a build still show their spread, with two degrees of freedom that --history moderates.
constexpr int kFewestPairs = 3;

/// The records a reply carries, validated as any profile is (a worker may be another build).
std::vector<record> records_of(const ojson& reply, const worker_link& from) {
  const auto it = reply.find("profile");
  if (it == reply.end() || !it->is_object()) throw runtime_error(from.name() + " sent a reply without its records");
  return worker_profile_from_json(*it, from.name()).records;
}

/// A reply's records must be the item's variants, in order.
void check_records(const std::vector<record>& records, const worker_item& item, const worker_link& from) {
  bool ok = records.size() == item.variants.size();
  for (std::size_t i = 0; ok && i < records.size(); ++i) ok = records[i].variant == item.variants[i];
  if (!ok)
    throw runtime_error(
        fmt::format("{} answered for {} with other records than the variants it planned", from.name(), item.key()));
}

/// Sends each worker its request, then collects every reply, so that the workers work at the same
/// time (verification is not timed). Every reply is read even after one failed, so that no worker
/// is left a reply behind; the first failure is rethrown.
std::vector<ojson> all_at_once(std::span<worker_link* const> workers, const std::vector<ojson>& requests) {
  for (std::size_t i = 0; i < workers.size(); ++i) workers[i]->send(requests[i]);
  std::vector<ojson> replies(workers.size());
  std::exception_ptr first;
  for (std::size_t i = 0; i < workers.size(); ++i) {
    try {
      replies[i] = worker_reply(*workers[i]);
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
  return replies;
}

std::vector<worker_item> items_of(const ojson& reply, const worker_link& w) {
  const auto items = reply.find("items");
  if (items == reply.end() || !items->is_array()) throw runtime_error(w.name() + " sent a plan without items");
  std::vector<worker_item> out;
  for (const auto& j : *items) out.push_back(item_from_json(j, w.name()));
  return out;
}

/// Every worker's plan, asked of all of them at once: planning opens the worker's device, a few
/// tenths of a second each (16 workers one after another: about 4 s on an H200).
std::vector<std::vector<worker_item>> plans_of(std::span<worker_link* const> workers, const worker_selection& selection,
                                               const worker_timing& timing) {
  const ojson request = worker_request("plan", {{"selection", to_json(selection)}, {"timing", to_json(timing)}});
  const std::vector<ojson> replies = all_at_once(workers, std::vector<ojson>(workers.size(), request));
  std::vector<std::vector<worker_item>> out;
  for (std::size_t i = 0; i < workers.size(); ++i) out.push_back(items_of(replies[i], *workers[i]));
  return out;
}

/// One build's plan: every worker of a build runs the same binary, so their plans must agree.
std::vector<worker_item> agreed(std::span<worker_link* const> workers,
                                std::span<const std::vector<worker_item>> plans) {
  const std::vector<worker_item>& first = plans[0];
  for (std::size_t i = 1; i < workers.size(); ++i) {
    const std::vector<worker_item>& other = plans[i];
    bool same = other.size() == first.size();
    for (std::size_t k = 0; same && k < other.size(); ++k)
      same = other[k].key() == first[k].key() && other[k].variants == first[k].variants;
    if (!same)
      throw runtime_error(fmt::format("{} and {} planned different sizes for the same selection; they must be the "
                                      "same build",
                                      workers[0]->name(), workers[i]->name()));
  }
  if (first.empty()) throw usage_error("the selection names no size to measure");
  return first;
}

std::vector<worker_item> agreed_plan(std::span<worker_link* const> workers, const worker_selection& selection,
                                     const worker_timing& timing) {
  const std::vector<std::vector<worker_item>> plans = plans_of(workers, selection, timing);
  return agreed(workers, plans);
}

/// One build's verified records of an item: worker 0's (the worker that verified it,
/// open_everywhere), with a variant that another worker could not set up marked as that worker
/// reported it.
std::vector<record> agreed_records(std::span<worker_link* const> workers, const std::vector<ojson>& replies,
                                   const worker_item& item) {
  std::vector<record> out = records_of(replies[0], *workers[0]);
  check_records(out, item, *workers[0]);
  for (std::size_t w = 1; w < workers.size(); ++w) {
    const std::vector<record> other = records_of(replies[w], *workers[w]);
    check_records(other, item, *workers[w]);
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i].status == record_status::passed && other[i].status != record_status::passed) {
        out[i].status = other[i].status;
        out[i].check = other[i].check;
        out[i].reason = fmt::format("{}: {}", workers[w]->name(), other[i].reason);
      }
  }
  return out;
}

/// A record its worker skipped because the size's state did not fit in the GPU's memory.
bool out_of_memory(const record& r) {
  return r.status == record_status::skipped && r.reason.find("out of memory") != std::string::npos;
}

/// The workers share one GPU's memory, so a size that fits one `run` can fail in them: a record
/// skipped for it says so, and which option (`option`) leaves each worker more.
void note_shared_memory(std::vector<record>& records, std::size_t processes, const char* option) {
  for (record& r : records)
    if (out_of_memory(r))
      r.reason +=
          fmt::format(" ({} worker processes share the GPU's memory: fewer {} leave each more)", processes, option);
}

/// An open request for `item`. With `verify` false the worker only sets the size up: every worker
/// of a build runs the same binary on the same inputs, so one check per build is `run`'s check,
/// and the others spare the GPU a run of every variant (chapter 4's 0.47 s atomic reduction, say,
/// once in every worker at the same time).
ojson open_request(std::size_t item, bool verify, bool hold) {
  ojson fields{{"item", item}};
  if (!hold) fields["hold"] = false;
  if (!verify) fields["verify"] = false;
  return worker_request("open", std::move(fields));
}

/// The variants a verifier's open reply names for its build's other workers to warm (its "warm",
/// gpubench/worker_protocol.hpp), kept to those among its records that passed.
std::vector<std::string> warm_list(const ojson& reply, const worker_link& verifier) {
  const auto names = reply.find("warm");
  if (names == reply.end() || !names->is_array()) return {};
  std::vector<std::string> out;
  for (const record& r : records_of(reply, verifier))
    if (r.status == record_status::passed && std::any_of(names->begin(), names->end(), [&](const ojson& v) {
          return v.is_string() && v.get_ref<const std::string&>() == r.variant;
        }))
      out.push_back(r.variant);
  return out;
}

/// Asks every worker that did not verify its size to run once, all at the same time, the variants
/// its build's verifier found cheap to repeat (runner::cheap_to_warm): a library's first call in a
/// process then costs each worker its host time side by side with the others, instead of inside
/// its first round while the rest wait. A failed reply is let pass: a build that does not know
/// "warm" pays for those first runs in its first round. A worker that died or hung
/// still throws, as any receive does.
void warm_the_others(std::span<worker_link* const> workers, const std::vector<std::size_t>& items,
                     const std::vector<std::size_t>& verifier_of, const std::vector<ojson>& replies) {
  std::map<std::size_t, std::vector<std::string>> lists;  // by verifier
  std::vector<std::size_t> asked;
  for (std::size_t w = 0; w < workers.size(); ++w) {
    const std::size_t v = verifier_of[w];
    if (v == w) continue;
    auto it = lists.find(v);
    if (it == lists.end()) it = lists.emplace(v, warm_list(replies[v], *workers[v])).first;
    if (it->second.empty()) continue;
    workers[w]->send(worker_request("warm", {{"item", items[w]}, {"variants", it->second}}));
    asked.push_back(w);
  }
  for (std::size_t w : asked) workers[w]->receive();
}

/// Opens `items[w]` in each worker `w`, all at once, verified in worker `verifier_of[w]` (each
/// build's verifier verifies for itself). Each keeps the state it set up for its first round and
/// is then warmed (warm_the_others; the time goes to `warming_s`). A size that fits one process can
/// run out of the GPU's memory in many: then every worker closes it and opens it again, one at a
/// time and without holding it ("hold": false), and from then on holds the size only while it
/// takes a round (rounds never overlap); nothing held, nothing is warmed, and `holding` (when
/// given) turns false.
std::vector<ojson> open_everywhere(std::span<worker_link* const> workers, const std::vector<std::size_t>& items,
                                   const std::vector<std::size_t>& verifier_of, double& warming_s,
                                   bool* holding = nullptr) {
  const auto verifies = [&](std::size_t w) { return verifier_of[w] == w; };
  std::vector<ojson> requests;
  for (std::size_t w = 0; w < workers.size(); ++w) requests.push_back(open_request(items[w], verifies(w), true));
  std::vector<ojson> replies = all_at_once(workers, requests);
  bool short_of_memory = false;
  for (std::size_t w = 0; w < workers.size() && !short_of_memory; ++w)
    for (const record& r : records_of(replies[w], *workers[w])) short_of_memory = short_of_memory || out_of_memory(r);
  if (!short_of_memory || workers.size() < 2) {
    const auto warming = std::chrono::steady_clock::now();
    warm_the_others(workers, items, verifier_of, replies);
    warming_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - warming).count();
    return replies;
  }
  if (holding) *holding = false;
  requests.clear();
  for (std::size_t w = 0; w < workers.size(); ++w) requests.push_back(worker_request("close", {{"item", items[w]}}));
  all_at_once(workers, requests);
  for (std::size_t w = 0; w < workers.size(); ++w)
    replies[w] = worker_call(*workers[w], open_request(items[w], verifies(w), false));
  return replies;
}

stop_reason worst(stop_reason a, stop_reason b) {
  auto rank = [](stop_reason r) { return r == stop_reason::timeout ? 2 : r == stop_reason::max_samples ? 1 : 0; };
  return rank(b) > rank(a) ? b : a;
}

/// Adds one round a worker measured to the record it belongs to.
void append_round(record& into, const record& from, int process, int cycle) {
  timing_data& t = into.timing;
  const timing_data& f = from.timing;
  const bool first = t.samples_s.empty();
  t.samples_s.insert(t.samples_s.end(), f.samples_s.begin(), f.samples_s.end());
  t.span_s.insert(t.span_s.end(), f.span_s.begin(), f.span_s.end());
  t.sm_clock_mhz.insert(t.sm_clock_mhz.end(), f.sm_clock_mhz.begin(), f.sm_clock_mhz.end());
  t.throttled.insert(t.throttled.end(), f.throttled.begin(), f.throttled.end());
  for (round_info ri : f.rounds) {
    ri.process = process;
    ri.cycle = cycle;
    t.rounds.push_back(ri);
  }
  if (first) t.stopped = stop_reason::converged;
  t.stopped = worst(t.stopped, f.stopped);
  t.source = f.source;
  t.clock_source = f.clock_source;
  t.wall_s += f.wall_s;
}

void drop_samples(record& r) {
  r.timing.samples_s.clear();
  r.timing.span_s.clear();
  r.timing.sm_clock_mhz.clear();
  r.timing.throttled.clear();
  r.timing.rounds.clear();
  r.stats.reset();
}

/// Summaries, throughput, floors, speedups and tuning ranks, as `run` derives them.
void finalize(std::vector<record>& records, const ceilings& c) {
  for (record& r : records) {
    timing_data& t = r.timing;
    const std::size_t n = t.samples_s.size();
    // Side data lines up with the samples or goes (one worker's rounds without spans, say).
    if (t.span_s.size() != n) t.span_s.clear();
    if (t.sm_clock_mhz.size() != n) t.sm_clock_mhz.clear();
    if (t.throttled.size() != n) t.throttled.clear();
    if (r.status == record_status::passed && n == 0 && r.reason.empty()) {
      r.status = record_status::error;
      r.reason = "no samples";
    }
    if (n > 0) r.stats = summarize(t.samples_s);
  }
  for (std::size_t i = 0; i < records.size(); ++i) derive(records[i], c, i == 0 ? nullptr : &records[0]);
  if (std::any_of(records.begin(), records.end(), [](const record& r) { return r.tuning.has_value(); }))
    rank_tuning(records);
}

std::vector<std::string> names_of(const std::vector<record>& records, const std::vector<std::size_t>& idx) {
  std::vector<std::string> out;
  for (std::size_t i : idx) out.push_back(records[i].variant);
  return out;
}

ojson round_request(std::size_t item, int local_round, int planned, const std::vector<std::string>& variants,
                    int cpu = -1, bool added = false, std::optional<int> turn = std::nullopt) {
  ojson fields{{"item", item}, {"round", local_round}, {"planned", planned}, {"variants", variants}};
  if (cpu >= 0) fields["cpu"] = cpu;
  if (added) fields["added"] = true;
  if (turn) fields["turn"] = *turn;
  return worker_request("round", std::move(fields));
}

/// Merges a round's reply into `records` (the variants at `timed`); a variant that failed in it is
/// marked as the worker reported it and leaves `timed`.
void take_round(const ojson& reply, const worker_link& from, std::vector<record>& records,
                std::vector<std::size_t>& timed, int process, int cycle) {
  const std::vector<record> got = records_of(reply, from);
  std::vector<std::size_t> still;
  for (std::size_t i : timed) {
    const auto it =
        std::find_if(got.begin(), got.end(), [&](const record& r) { return r.variant == records[i].variant; });
    if (it == got.end() || it->status != record_status::passed || it->timing.samples_s.empty()) {
      records[i].status = record_status::error;
      records[i].reason =
          fmt::format("{}: {}", from.name(), it == got.end() ? "no result for this variant" : it->reason);
      drop_samples(records[i]);
      continue;
    }
    append_round(records[i], *it, process, cycle);
    still.push_back(i);
  }
  timed = std::move(still);
}

/// The part of a record's center error that more rounds shrink: its rounds' spread about their
/// process means over the rounds, at least its samples' noise.
double within_error(const record& r) {
  const detail::side_estimate s = detail::estimate_side(r.timing.samples_s, r.timing.rounds);
  return std::sqrt(std::max(s.round_sd * s.round_sd / static_cast<double>(s.rounds), s.noise_var));
}

/// Goodput and counters (`run --metrics`), measured by one worker once the size's rounds are in.
void finish(worker_link& w, std::size_t item, std::vector<record>& records) {
  ojson medians = ojson::object();
  for (const record& r : records)
    if (r.status == record_status::passed && !r.timing.samples_s.empty())
      medians[r.variant] = median(r.timing.samples_s);
  const ojson reply = worker_call(w, worker_request("finish", {{"item", item}, {"medians", std::move(medians)}}));
  const std::vector<record> got = records_of(reply, w);
  for (record& r : records)
    for (const record& g : got)
      if (g.variant == r.variant) {
        if (g.goodput) r.goodput = g.goodput;
        if (g.metrics) r.metrics = g.metrics;
      }
}

/// `run --processes`: measures the sizes of one plan, appending their records to `all`
/// (measure_across_processes).
void measure_sizes(std::span<worker_link* const> workers, const std::vector<worker_item>& items,
                   const processes_plan& plan, const coordinator_progress& progress, const ceilings& ceil,
                   std::vector<record>& all) {
  const int k = static_cast<int>(workers.size());
  for (std::size_t idx = 0; idx < items.size(); ++idx) {
    const worker_item& item = items[idx];
    if (progress.item_begin) progress.item_begin(idx, items.size(), item);
    if (progress.phase) progress.phase(fmt::format("setting up in {} workers, verifying in one", k));
    double warming_s = 0;
    const std::vector<ojson> opened = open_everywhere(workers, std::vector<std::size_t>(workers.size(), idx),
                                                      std::vector<std::size_t>(workers.size(), 0), warming_s);
    std::vector<record> records = agreed_records(workers, opened, item);
    note_shared_memory(records, workers.size(), "--processes");
    std::vector<std::size_t> timed;
    for (std::size_t i = 0; i < records.size(); ++i)
      if (records[i].status == record_status::passed) timed.push_back(i);
    const int planned = round_up(std::max(plan.rounds, k), k);
    const int most = item.redraws ? std::max(planned, round_up(plan.max_rounds, k)) : planned;
    for (int r = 0; r < most && !timed.empty(); ++r) {
      const int w = r % k;
      if (progress.phase)
        progress.phase(fmt::format("round {} of {} on worker {}", r + 1, std::max(planned, r + 1), w));
      const ojson reply =
          worker_call(*workers[w], round_request(idx, r / k, planned, names_of(records, timed), -1, r >= planned));
      take_round(reply, *workers[w], records, timed, w, -1);
      if ((r + 1) % k != 0 || r + 1 < planned) continue;
      const bool unsettled = std::any_of(timed.begin(), timed.end(),
                                         [&](std::size_t i) { return within_error(records[i]) > plan.target; });
      if (!unsettled) break;
    }
    if (!timed.empty()) {
      if (progress.phase) progress.phase("goodput and counters");
      finish(*workers[0], idx, records);
    }
    all_at_once(workers, std::vector<ojson>(workers.size(), worker_request("close", {{"item", idx}})));
    finalize(records, ceil);
    all.insert(all.end(), records.begin(), records.end());
    if (progress.item_end) progress.item_end(all);
  }
}

}  // namespace

std::vector<profile> hello_workers(std::span<worker_link* const> workers) {
  // No answer at all: a program that is not a gpubench worker, or a gpubench from before workers
  // existed (it refuses the command and exits).
  const auto not_a_worker = [](const worker_link& w, const error& e) {
    return usage_error(fmt::format("{} did not answer as a gpubench worker ({}); `gpubench worker` needs a gpubench "
                                   "built from a commit that has it: rebuild that side",
                                   w.name(), e.what()));
  };
  for (worker_link* w : workers) {
    try {
      w->send(worker_request("hello", {{"protocol", kWorkerProtocol}}));
    } catch (const error& e) {
      throw not_a_worker(*w, e);
    }
  }
  std::vector<profile> out;
  for (worker_link* w : workers) {
    ojson reply;
    try {
      reply = w->receive();
    } catch (const error& e) {
      throw not_a_worker(*w, e);
    }
    // An answer that is a failure (no GPU, say) is the worker's own error, with its own exit code.
    if (const auto ok = reply.find("ok"); ok != reply.end() && ok->is_boolean() && !ok->get<bool>())
      worker_call_result(*w, reply);
    const auto version = reply.find("protocol");
    if (version == reply.end() || !version->is_number_integer() || version->get<int>() != kWorkerProtocol)
      throw usage_error(fmt::format("{} speaks worker protocol {}, this gpubench speaks {}: build both sides from "
                                    "commits with the same protocol",
                                    w->name(), version == reply.end() ? std::string("(none)") : version->dump(),
                                    kWorkerProtocol));
    const auto p = reply.find("profile");
    if (p == reply.end() || !p->is_object()) throw runtime_error(w->name() + " answered hello without its provenance");
    out.push_back(worker_profile_from_json(*p, w->name()));
  }
  return out;
}

std::vector<record> measure_across_processes(std::span<worker_link* const> workers,
                                             std::span<const worker_selection> selections, const worker_timing& timing,
                                             const processes_plan& plan, const coordinator_progress& progress,
                                             profile& out) {
  if (workers.empty()) throw usage_error("run --processes needs at least one worker");
  const std::vector<profile> hellos = hello_workers(workers);
  out.prov.gpubench_version = hellos[0].prov.gpubench_version;
  out.prov.git_sha = hellos[0].prov.git_sha;
  out.prov.device = hellos[0].prov.device;
  out.ceil = hellos[0].ceil;
  std::vector<record> all;
  for (const worker_selection& selection : selections)
    measure_sizes(workers, agreed_plan(workers, selection, timing), plan, progress, out.ceil, all);
  return all;
}

namespace {

/// Seconds since `t0` on the steady clock.
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The round's time inside the worker (round_s), absent from builds that do not report it.
std::optional<double> reported_round_s(const ojson& reply) {
  const auto it = reply.find("round_s");
  if (it == reply.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

/// What a round's answer says of its time: inside the worker (reported_round_s) and the records'
/// own wall_s (warm-up, samples, rests).
void add_round_cost(const ojson& reply, ab_cost& cost) {
  if (const auto inside = reported_round_s(reply)) {
    cost.in_worker_s += *inside;
    ++cost.rounds_timed_inside;
  }
  const auto profile = reply.find("profile");
  if (profile == reply.end() || !profile->is_object()) return;
  const auto records = profile->find("records");
  if (records == profile->end() || !records->is_array()) return;
  for (const ojson& r : *records) {
    const auto timing = r.find("timing");
    if (timing == r.end() || !timing->is_object()) continue;
    const auto wall = timing->find("wall_s");
    if (wall != timing->end() && wall->is_number()) cost.sampling_s += wall->get<double>();
  }
}

/// Whether more cycles would narrow the record's interval (coordinator.hpp, measure_ab): the part
/// of its paired center's variance that the cycles carry is above the target, and, once `past`
/// (beyond twice the planned cycles, where each sweep costs more than it did), twice the cycles
/// would cut the whole variance, that part and the one the pairs of workers add by their own
/// offsets (which no number of cycles shrinks), by at least a tenth. Before that the pairs' part
/// is not weighed: with two cycles a pair, a wild cycle or two look like a pair's offset.
bool more_cycles_help(const record& base, const record& next, double target, bool past) {
  const detail::side_estimate b = detail::estimate_side(base.timing.samples_s, base.timing.rounds);
  const detail::side_estimate n = detail::estimate_side(next.timing.samples_s, next.timing.rounds);
  const auto c = detail::paired_cycles(b, n);
  if (!c) return true;
  const double groups = static_cast<double>(c->groups);
  const double within = std::max(c->resid_var * c->mean_inv_n / groups, c->noise_var);
  if (within <= target * target) return false;
  if (!past || c->groups < 2) return true;  // one pair of workers: nothing measures their offsets
  const double pairs_part = std::max(0.0, c->group_var / groups - within);
  return within / 2 >= kWorthMore * (within + pairs_part);
}

/// How a size over its budget is measured (measure_ab): the pairs of workers it uses and the cycles
/// planned over them.
struct size_plan {
  int pairs = 0;
  int cycles = 0;
};

/// A size whose `planned` cycles over `k` pairs would take longer than `budget_s` at its first
/// cycle's pace gets the whole sweeps that fit, at least one; where one sweep over all k pairs would
/// not fit, over as many pairs as fit, at least kFewestPairs: a few worker processes still measure
/// the between-process level, and the interval's degrees of freedom follow the pairs used. Sizes
/// whose samples take a large part of a second (chapter 4's atomic reduction, chapter 7's GEMMs at
/// 8192) cost a second or more a cycle, and all k pairs of them would take minutes; their records
/// resolve 2-3% on three pairs as on four, with history. Nothing, within the budget.
std::optional<size_plan> over_budget(int k, int planned, double first_cycle_s, double budget_s) {
  if (first_cycle_s * planned <= budget_s) return std::nullopt;
  const int fit = static_cast<int>(budget_s / first_cycle_s);  // cycles
  const int pairs = std::clamp(fit / 2, std::min(kFewestPairs, k), k);
  const int sweep = 2 * pairs;
  return size_plan{pairs, std::max(sweep, fit / sweep * sweep)};
}

/// Both builds' plans of one selection and the sizes they share (measure_ab); a size only one
/// build plans goes to `out`'s only_in_base or only_in_new.
struct both_plans {
  std::vector<worker_item> base, next;
  std::vector<std::pair<std::size_t, std::size_t>> common;  ///< (index in base, index in next)
};

both_plans plan_both(std::span<worker_link* const> base, std::span<worker_link* const> next,
                     const worker_selection& selection, const worker_timing& timing, ab_outcome& out) {
  std::vector<worker_link*> everyone(base.begin(), base.end());
  everyone.insert(everyone.end(), next.begin(), next.end());
  const std::vector<std::vector<worker_item>> plans = plans_of(everyone, selection, timing);
  const std::span<const std::vector<worker_item>> all_plans(plans);
  both_plans b{agreed(base, all_plans.first(base.size())), agreed(next, all_plans.subspan(base.size())), {}};
  std::map<std::string, std::size_t> in_next;
  for (std::size_t i = 0; i < b.next.size(); ++i) in_next.emplace(b.next[i].key(), i);
  std::map<std::string, bool> in_base;
  for (const worker_item& it : b.base) in_base.emplace(it.key(), true);
  for (std::size_t i = 0; i < b.base.size(); ++i) {
    const auto it = in_next.find(b.base[i].key());
    if (it == in_next.end()) out.only_in_base.push_back(b.base[i].key());
    else b.common.emplace_back(i, it->second);
  }
  for (const worker_item& it : b.next)
    if (!in_base.contains(it.key())) out.only_in_new.push_back(it.key());
  if (b.common.empty())
    throw usage_error("the two builds plan no size in common for this selection: nothing to compare");
  return b;
}

/// Has a cycle's two workers, `links` (base, new), build the fresh states of their next rounds,
/// `rounds`, at the same time: the cycle's two rounds then follow each other with no set-up between
/// them, and the two set-ups take about the time of one. A worker's round 0 runs on the state it
/// set up when the size opened, which nothing rebuilds, so it is not asked. A failure reply (a
/// build from before "prepare") turns `both_prepare` false: from then on neither build is asked,
/// so that both build their states alike, inside their rounds. Returns the seconds it took, which
/// the size's budget counts as its rounds'.
double prepare_cycle(const std::array<worker_link*, 2>& links, const std::array<int, 2>& rounds,
                     const std::array<std::size_t, 2>& items, bool& both_prepare, ab_cost& cost) {
  if (!both_prepare) return 0;
  const auto asked_at = std::chrono::steady_clock::now();
  std::vector<std::size_t> asked;
  for (std::size_t side = 0; side < 2; ++side)
    if (rounds[side] > 0) {
      links[side]->send(worker_request("prepare", {{"item", items[side]}, {"round", rounds[side]}}));
      asked.push_back(side);
    }
  for (std::size_t side : asked) {
    const ojson reply = links[side]->receive();
    const auto ok = reply.find("ok");
    if (ok == reply.end() || !ok->is_boolean() || !ok->get<bool>()) both_prepare = false;
  }
  if (asked.empty()) return 0;
  const double took = seconds_since(asked_at);
  cost.preparing_s += took;
  ++cost.prepares;
  return took;
}

/// Each worker's context level (gpubench/context_level.hpp), asked of one worker at a time so that
/// each times its graph replay alone on the GPU; empty when some worker of either build does not
/// know "calibrate" (a build from before it), so that compare adjusts neither build. Asked after
/// the plan: a process's level can move while its runner sets up (its streams, its buffers) beside
/// other processes doing the same, and holds from then on (docs/results/h200.md, "Calibrating the
/// context's level").
std::vector<double> calibrate_workers(std::span<worker_link* const> everyone) {
  std::vector<double> levels;
  for (worker_link* w : everyone) {
    w->send(worker_request("calibrate"));
    const ojson reply = w->receive();
    const auto ok = reply.find("ok");
    const auto level = reply.find("graph_replay_s");
    if (ok == reply.end() || !ok->is_boolean() || !ok->get<bool>() || level == reply.end() || !level->is_number() ||
        !(level->get<double>() > 0) || !std::isfinite(level->get<double>()))
      return {};
    levels.push_back(level->get<double>());
  }
  return levels;
}

/// One size both builds plan, `ib` in the base build's plan and `in` in the new one's: set up in
/// every worker, verified in each build's first, then measured in cycles (measure_ab). Its records
/// go to `out`.
void measure_ab_size(std::span<worker_link* const> base, std::span<worker_link* const> next, const worker_item& item,
                     std::size_t ib, const worker_item& item_n, std::size_t in, const ab_plan& plan,
                     const coordinator_progress& progress, bool& both_prepare, ab_outcome& out) {
  const int k = static_cast<int>(base.size());
  std::vector<worker_link*> everyone(base.begin(), base.end());
  everyone.insert(everyone.end(), next.begin(), next.end());
  std::vector<int> local(everyone.size(), 0);  // each worker's own round count for the size
  if (progress.phase)
    progress.phase(fmt::format("setting up in {} workers, verifying in one of each build", everyone.size()));
  std::vector<std::size_t> items(static_cast<std::size_t>(k), ib);
  items.resize(everyone.size(), in);
  const auto opening = std::chrono::steady_clock::now();
  std::vector<std::size_t> verifier_of(static_cast<std::size_t>(k), 0);  // each build's first worker
  verifier_of.resize(everyone.size(), static_cast<std::size_t>(k));
  double warming_s = 0;
  bool holding = true;  // false: each worker builds the size only while it takes a round
  const std::vector<ojson> opened = open_everywhere(everyone, items, verifier_of, warming_s, &holding);
  out.cost.verifying_s += seconds_since(opening) - warming_s;
  out.cost.warming_s += warming_s;
  std::vector<record> rb = agreed_records(base, std::vector<ojson>(opened.begin(), opened.begin() + k), item);
  std::vector<record> rn = agreed_records(next, std::vector<ojson>(opened.begin() + k, opened.end()), item_n);
  note_shared_memory(rb, everyone.size(), "--workers");
  note_shared_memory(rn, everyone.size(), "--workers");
  // Only what passed in both builds is timed; each side keeps its other records as they are.
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  // (index in rb, index in rn)
  for (std::size_t i = 0; i < rb.size(); ++i) {
    const auto j = std::find_if(rn.begin(), rn.end(), [&](const record& r) { return r.variant == rb[i].variant; });
    if (j == rn.end()) continue;
    const bool pb = rb[i].status == record_status::passed, pn = j->status == record_status::passed;
    if (pb && pn) {
      pairs.emplace_back(i, static_cast<std::size_t>(j - rn.begin()));
    } else if (pb || pn) {
      record& passed = pb ? rb[i] : *j;
      const record& other = pb ? *j : rb[i];
      passed.status = record_status::skipped;
      passed.reason = fmt::format("not timed: the {} build's {} did not pass ({}: {})", pb ? "new" : "base",
                                  other.variant, to_string(other.status), other.reason);
    }
  }
  int pairs_used = k;  // this size's pairs of workers
  int sweep = 2 * k;   // every one of them in both orders
  int planned = round_up(std::max(plan.cycles, sweep), sweep);
  int most = std::max(planned, round_up(plan.max_cycles, sweep));
  int most_if_cheap = std::max(most, round_up(kCheapCyclesFactor * plan.max_cycles, sweep));
  // Each round samples a record for its share of the whole budget, one of the cycles first
  // planned; a size cut to fewer cycles (over_budget) keeps that share rather than lengthening
  // its rounds, so that the cut saves the samples' time as well as the cycles'.
  const int share = planned;
  double spent_s = 0;  // its rounds and prepared states: the workers' own count, else answer to answer
  for (int c = 0; c < most_if_cheap && !pairs.empty(); ++c) {
    const int w = c % pairs_used;
    // ABBA within each pair: a pair goes base first in one sweep and new first in the next. Within
    // a sweep the pairs alternate which build goes first, so that the rounds of a worker's first
    // sweep, which run on the state it verified rather than a fresh one, are split between the two
    // orders instead of all falling on one. And both rounds of a cycle, and a pair's cycles of both
    // orders in a block of two sweeps, start their variants' round-robin at the same variant: what
    // a round's first samples pay falls on that variant in both builds and cancels in the pair's
    // figure (docs/measurement.md, "A round's first samples").
    const bool base_first = (c / pairs_used + w) % 2 == 0;
    const int first_variant = c / sweep;
    const std::size_t slot_b = static_cast<std::size_t>(w), slot_n = static_cast<std::size_t>(k + w);
    // Two states at once do not fit where the workers hold the size only while taking a round.
    if (holding)
      spent_s += prepare_cycle({everyone[slot_b], everyone[slot_n]}, {local[slot_b], local[slot_n]}, {ib, in},
                               both_prepare, out.cost);
    for (int turn = 0; turn < 2 && !pairs.empty(); ++turn) {
      const bool is_base = (turn == 0) == base_first;
      const std::size_t slot = is_base ? slot_b : slot_n;
      worker_link& link = *everyone[slot];
      if (progress.phase)
        progress.phase(fmt::format("cycle {} of {}: {}", c + 1, std::max(planned, c + 1), is_base ? "base" : "new"));
      std::vector<record>& side = is_base ? rb : rn;
      std::vector<std::size_t> timed;
      for (const auto& [i, j] : pairs) timed.push_back(is_base ? i : j);
      const auto asked = std::chrono::steady_clock::now();
      const int cpu = plan.cpus.empty() ? -1 : plan.cpus[static_cast<std::size_t>(w) % plan.cpus.size()];
      const ojson reply = worker_call(link, round_request(is_base ? ib : in, local[slot]++, share,
                                                          names_of(side, timed), cpu, false, first_variant));
      const double took = seconds_since(asked);
      out.cost.rounds_s += took;
      spent_s += reported_round_s(reply).value_or(took);
      ++out.cost.rounds;
      if (const auto held = reply.find("cpu"); cpu >= 0 && held != reply.end() && *held == cpu)
        ++out.cost.rounds_on_cpu;
      if (const auto taken = reply.find("turn"); taken != reply.end() && *taken == first_variant)
        ++out.cost.rounds_turned;
      add_round_cost(reply, out.cost);
      take_round(reply, link, side, timed, w, c);
      // A variant that failed on one side cannot be paired any more: the other side keeps what it
      // measured, and the pair is timed no further.
      std::erase_if(pairs, [&](const std::pair<std::size_t, std::size_t>& pr) {
        return std::find(timed.begin(), timed.end(), is_base ? pr.first : pr.second) == timed.end();
      });
    }
    if (c == 0)
      if (const auto cut = over_budget(k, planned, spent_s, plan.size_budget_s)) {
        pairs_used = cut->pairs;
        sweep = 2 * pairs_used;
        planned = most = most_if_cheap = cut->cycles;
        if (pairs_used < k) out.on_fewer_pairs.push_back({item.key(), pairs_used, k});
      }
    if ((c + 1) % sweep != 0 || c + 1 < planned) continue;
    const bool past = c + 1 >= 2 * planned;
    const bool helps = std::any_of(pairs.begin(), pairs.end(), [&](const auto& pr) {
      return more_cycles_help(rb[pr.first], rn[pr.second], plan.target, past);
    });
    if (!helps) break;
    const double with_next_sweep_s = spent_s + spent_s / (c + 1) * sweep;
    // From twice --cycles on, in whole sweeps, the size must fit its budget. Twice the planned
    // cycles would not do: with 16 workers a build one sweep is already 32 cycles and twice that is
    // --max-cycles, so no size would be held back below it, and chapter 1's 1 GiB pageable copies,
    // limited by their pairs of workers rather than their cycles, would spend twice their budget
    // (docs/measurement.md, "How many cycles").
    if (c + 1 >= round_up(2 * plan.cycles, sweep) && with_next_sweep_s > plan.size_budget_s) break;
    if (c + 1 >= most && with_next_sweep_s > kCheapShare * plan.size_budget_s) break;
  }
  const auto closing = std::chrono::steady_clock::now();
  all_at_once(everyone, [&] {
    std::vector<ojson> closes;
    for (int w = 0; w < k; ++w) closes.push_back(worker_request("close", {{"item", ib}}));
    for (int w = 0; w < k; ++w) closes.push_back(worker_request("close", {{"item", in}}));
    return closes;
  }());
  out.cost.closing_s += seconds_since(closing);
  finalize(rb, out.base.ceil);
  finalize(rn, out.next.ceil);
  out.base.records.insert(out.base.records.end(), rb.begin(), rb.end());
  out.next.records.insert(out.next.records.end(), rn.begin(), rn.end());
}

}  // namespace

ab_outcome measure_ab(std::span<worker_link* const> base, std::span<worker_link* const> next,
                      std::span<const worker_selection> selections, const worker_timing& timing, const ab_plan& plan,
                      const std::string& session, const coordinator_progress& progress) {
  if (base.empty() || base.size() != next.size())
    throw usage_error("gpubench ab needs as many workers of each build, at least one");
  const int k = static_cast<int>(base.size());
  const auto started = std::chrono::steady_clock::now();
  std::vector<worker_link*> everyone(base.begin(), base.end());
  everyone.insert(everyone.end(), next.begin(), next.end());
  const std::vector<profile> hellos = hello_workers(everyone);
  ab_outcome out;
  ojson options = to_json(timing);
  options["ab_session"] = session;
  options["ab_workers_per_build"] = k;
  options["ab_cycles"] = plan.cycles;
  options["ab_max_cycles"] = plan.max_cycles;
  options["ab_size_budget_s"] = plan.size_budget_s;
  for (auto [p, hello] :
       {std::pair{&out.base, &hellos[0]}, std::pair{&out.next, &hellos[static_cast<std::size_t>(k)]}}) {
    p->prov.gpubench_version = hello->prov.gpubench_version;
    p->prov.git_sha = hello->prov.git_sha;
    p->prov.device = hello->prov.device;
    p->ceil = hello->ceil;
    p->options = options;
  }
  out.cost.starting_s = seconds_since(started);

  bool both_prepare = true;  // until a worker of either build refuses "prepare"
  bool calibrates = true;    // until a worker of either build cannot "calibrate"
  for (const worker_selection& selection : selections) {
    const auto planning = std::chrono::steady_clock::now();
    const both_plans both = plan_both(base, next, selection, timing, out);
    const std::vector<double> levels = calibrates ? calibrate_workers(everyone) : std::vector<double>();
    calibrates = !levels.empty();
    out.cost.starting_s += seconds_since(planning);
    const std::size_t first_record = out.base.records.size();
    for (std::size_t n = 0; n < both.common.size(); ++n) {
      const auto [ib, in] = both.common[n];
      if (progress.item_begin) progress.item_begin(n, both.common.size(), both.base[ib]);
      measure_ab_size(base, next, both.base[ib], ib, both.next[in], in, plan, progress, both_prepare, out);
      if (progress.item_end) progress.item_end(out.next.records);
    }
    if (calibrates)
      for (std::size_t i = first_record; i < out.base.records.size(); ++i) {
        const std::string chapter = std::to_string(out.base.records[i].chapter);
        out.base.options[kContextLevelsOption][chapter] = std::vector<double>(levels.begin(), levels.begin() + k);
        out.next.options[kContextLevelsOption][chapter] = std::vector<double>(levels.begin() + k, levels.end());
      }
  }
  // Once a worker could not calibrate, neither build's levels are kept: both are judged alike.
  if (!calibrates) {
    out.base.options.erase(kContextLevelsOption);
    out.next.options.erase(kContextLevelsOption);
  }
  out.base.complete = out.next.complete = true;
  return out;
}

std::vector<std::string> sizes_out_of_memory(const ab_outcome& out) {
  std::vector<std::string> sizes;
  for (const profile* p : {&out.base, &out.next})
    for (const record& r : p->records)
      if (out_of_memory(r)) {
        const std::string key = fmt::format("ch{:02}/{}[{}]", r.chapter, r.pair, r.size.to_string());
        if (std::find(sizes.begin(), sizes.end(), key) == sizes.end()) sizes.push_back(key);
      }
  return sizes;
}

}  // namespace gpubench
