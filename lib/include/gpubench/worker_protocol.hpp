#pragma once
/// The protocol between a coordinator and `gpubench worker` processes: `run --processes K` spreads
/// a run's rounds over K workers of one build, and `gpubench ab` alternates the rounds of two
/// builds' workers. One JSON object per line on the worker's stdin (requests) and stdout (replies);
/// the worker's stderr is its log. Every reply has "ok"; a failed request answers
/// {"ok": false, "error": TEXT, "exit": CODE}. Versioned by kWorkerProtocol: a worker answers
/// hello with its version, and a coordinator refuses one that speaks another. CUDA-free.
///
///   hello   {protocol}                  -> {protocol, gpubench, git_sha, profile: provenance and ceilings}
///   plan    {selection, timing}         -> {items: [{pair, size, variants, redraws}]}
///   open    {item[, hold, verify]}      -> {profile: the item's records, verified, untimed[, warm]}
///   warm    {item, variants}            -> {warmed: how many ran}
///   prepare {item, round}               -> {prepared: whether the round's fresh state is built}
///   calibrate {}                        -> {graph_replay_s: the context's level (context_level.hpp)}
///   round   {item, round, planned, variants[, cpu, added, turn]}
///                                       -> {profile: the item's records with this round's samples,
///                                           round_s[, cpu: the CPU its samples were held on,
///                                           turn: where its round-robin started]}
///   finish  {item, medians}             -> {profile: the records' goodput and counters}
///   close   {item}                      -> {}
///   bye     {}                          -> {} and the worker exits 0
///
/// A round's "cpu" and its echo are optional: a worker that does not know them times the round
/// wherever the scheduler puts it and answers without the echo, which the coordinator reports.
/// A round's "turn" (default: the round's index) is where its round-robin over the variants starts
/// (schedule_options::turn), echoed when taken: `ab` names the same for both rounds of a cycle. A
/// worker that does not know it starts at its round's index and answers without the echo, which
/// the coordinator reports.
/// A round's "added" (default false) marks a round beyond the planned ones: it keeps a planned
/// round's noise target and counts but has no minimum time, as a run's added rounds
/// (measure_rounds). A worker that does not know it gives the round a planned round's budget.
/// An open's "hold" (default true) keeps the verified state for the worker's first round; false
/// frees it once verified and after every round, so that the worker holds the size's memory only
/// while it takes a round. A worker that does not know it holds the state, and a size that does
/// not fit stays skipped. An open's "verify" (default true) false sets the size up without running
/// its variants: the coordinator has one worker of each build verify a size, since every worker
/// of a build runs the same binary on the same inputs, and the others' records come back passed
/// with a check "not verified" that says why. A worker that does not know it verifies as well.
/// An open that verifies answers "warm": the variants cheap enough for the build's other workers
/// to run once each, side by side, before their first round (runner::cheap_to_warm), which the
/// coordinator sends them in a "warm" request once every worker has opened the size. A worker
/// that does not know warm answers a failure, which the coordinator lets pass: its first round
/// then pays for those first runs. An open reply without "warm" warms nothing.
/// A "prepare" builds the fresh state of the worker's next round ahead of it, so that the round
/// starts sampling at once: `ab` asks both workers of a cycle at the same time, then takes their
/// rounds back to back. A worker that does not know it answers a failure, and the coordinator asks
/// neither build again, so that both build their states alike, inside their rounds; one that could
/// not build the state answers "prepared": false, and the round builds it, reporting what fails.
/// A "calibrate" times a short graph replay in the worker's context (gpubench/context_level.hpp):
/// `ab` asks every worker in turn, alone on the GPU, once they have planned a chapter and before its
/// first size. A worker that does not know it answers a failure, and the coordinator keeps no level
/// for either build, so that compare judges both alike.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpubench/sampling.hpp"

namespace gpubench {

inline constexpr int kWorkerProtocol = 1;

/// What the coordinator's command selected: the worker plans exactly what `run` would.
struct worker_selection {
  int chapter = 0;
  std::vector<std::string> pairs;     ///< `--pair`
  std::vector<std::string> axes;      ///< `--axis NAME=V1,V2`, as given
  std::vector<std::string> variants;  ///< `--variant`
  bool smallest = false;
};

/// The options a worker applies to each round; the number of rounds is the coordinator's choice.
struct worker_timing {
  /// The whole record's budget; a round gets total.per_round(planned), `planned` given with each
  /// round request (the coordinator plans the rounds).
  stopping_criteria total;
  int warmup_runs = 1;
  double rest_ratio = 1.0;
  bool gpu_busy = false;
  bool replace_memory = true;        ///< run_options::replace_memory
  std::uint64_t seed = 0;            ///< the same in every worker, so every worker measures the same inputs
  std::vector<std::string> metrics;  ///< CUPTI metric names for `finish`; empty: none
  bool metrics_per_kernel = false;
};

/// One size of one pair in a worker's plan.
struct worker_item {
  std::string pair;                   ///< the pair's id, "ch01/batched_gemm"
  std::string size;                   ///< size_point::to_string()
  std::vector<std::string> variants;  ///< in declaration order; the first is the baseline
  /// Whether a fresh round redraws what differs between processes (rounds_redraw_process_noise):
  /// the coordinator adds rounds only where it does.
  bool redraws = true;
  [[nodiscard]] std::string key() const { return pair + "[" + size + "]"; }
};

nlohmann::ordered_json to_json(const worker_selection& s);
worker_selection selection_from_json(const nlohmann::ordered_json& j);
nlohmann::ordered_json to_json(const worker_timing& t);
worker_timing timing_from_json(const nlohmann::ordered_json& j);
nlohmann::ordered_json to_json(const worker_item& i);
/// Reads and checks an item a worker sent (its strings bounded and printable); throws
/// runtime_error naming `who` when the item is malformed.
worker_item item_from_json(const nlohmann::ordered_json& j, const std::string& who);

/// A request message {"op": op, ...fields}.
nlohmann::ordered_json worker_request(const std::string& op,
                                      nlohmann::ordered_json fields = nlohmann::ordered_json::object());
/// A failure reply.
nlohmann::ordered_json worker_failure(const std::string& message, int exit_code);

}  // namespace gpubench
