#pragma once
// A worker in the test's own process that answers the worker protocol (gpubench/worker_protocol.hpp)
// with scripted times: each variant's time, a factor per worker process (what differs between
// processes: placement, the host), a drift of the host shared by every worker over time, and
// lognormal noise per round and per sample. The coordinator cannot tell it from `gpubench worker`.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gpubench/error.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/stats.hpp"
#include "gpubench/worker_link.hpp"
#include "gpubench/worker_protocol.hpp"

namespace fake {

/// What every fake worker shares: the clock the drift follows (one tick per round) and the noise.
struct world {
  double tick = 0;
  std::function<double(double)> drift = [](double) { return 1.0; };
  /// The host's cores: a round's samples run on the core the coordinator asked for ("cpu"), else
  /// on one drawn at random, and take `core_speed(core, tick)` times as long.
  int cores = 1;
  std::function<double(int, double)> core_speed = [](int, double) { return 1.0; };
  std::mt19937_64 rng{20261125};
  /// The GPU's memory, counted in states of the size: how many workers can hold one at once, and
  /// how many do. A worker that opens a size beyond it reports every variant out of memory.
  int state_capacity = 1 << 30;
  int states_held = 0;
  /// Every "prepare" and "round" any worker served, in order: "prepare NAME ROUND", "round NAME ROUND".
  std::vector<std::string> log;
  /// What a round's first samples pay: in the first round after a cycle's states were prepared, the
  /// first `slow_start_samples` samples of its round-robin take `slow_start` times as long (on an
  /// H200, the first one or two samples of a 500-600 us copy read about 55 us slow there).
  double slow_start = 1.0;
  int slow_start_samples = 0;
  long rounds_taken = 0;  ///< rounds any worker served
  double normal(double sd) { return sd > 0 ? std::normal_distribution<double>(0, sd)(rng) : 0.0; }
};

/// What one build measures.
struct build {
  std::vector<std::string> variants{"baseline", "optimized"};
  std::vector<double> seconds{200e-6, 100e-6};  ///< each variant's true time
  std::vector<std::int64_t> sizes{1024};        ///< the axis `n`
  bool host_timed = false;
  double round_sd = 0.002;   ///< log sd of a round's median about the process's level
  double sample_sd = 0.004;  ///< log sd of a sample about its round's median
  int samples_per_round = 12;
  double round_s = 0;  ///< what a round reports as its own time (round_s); 0: nothing, as older builds
  std::vector<std::string> fail_verification;  ///< variants this build gets wrong
  std::vector<std::string> out_of_memory;      ///< variants whose state does not fit, as a worker reports it
  /// What a verifying open names for the other workers to warm ("warm"; a build from before warm
  /// names nothing). With `knows_warm` false a warm request is answered as an unknown op.
  std::vector<std::string> cheap_to_warm;
  bool knows_warm = true;
  /// With `knows_prepare` false a prepare request is answered as an unknown op, as by a build from
  /// before it.
  bool knows_prepare = true;
  /// Real seconds each "prepare" takes: the coordinator times prepares by its own clock, as a
  /// worker building a state of 1 GiB takes a tenth of a second or more.
  double prepare_s = 0;
  /// With `knows_turn` false a round's "turn" is ignored, as by a build from before it: its
  /// round-robin starts at the round's index and the reply has no echo.
  bool knows_turn = true;
  /// With `knows_calibrate` a "calibrate" is answered with calibrate_s times the worker's context
  /// level (worker::in_context) and a little noise; without, as an unknown op, as by a build from
  /// before it. The level multiplies the times of `context_variants` only, as a context's draw
  /// moves graph replays and not the rest (gpubench/context_level.hpp).
  bool knows_calibrate = false;
  double calibrate_s = 90e-6;
  std::vector<std::string> context_variants;
};

class worker final : public gpubench::worker_link {
 public:
  /// `process_factor`: this process's own offset (1 = none). `process_add_s`: a time of its own
  /// added to every sample, as an empty event span measured a little off would add, which moves a
  /// short variant more than a long one.
  worker(world& w, build b, double process_factor, std::string name, double process_add_s = 0)
      : world_(w), build_(std::move(b)), factor_(process_factor), add_s_(process_add_s), name_(std::move(name)) {}

  /// This worker's context level (1 = the usual): what its calibration and its context_variants read.
  worker& in_context(double level) {
    context_ = level;
    return *this;
  }

  void send(const nlohmann::ordered_json& request) override { replies_.push_back(answer(request)); }
  nlohmann::ordered_json receive() override {
    if (replies_.empty()) throw gpubench::runtime_error(name_ + ": nothing to receive");
    nlohmann::ordered_json r = std::move(replies_.front());
    replies_.pop_front();
    return r;
  }
  [[nodiscard]] const std::string& name() const override { return name_; }
  int rounds_served = 0;
  int added_rounds_served = 0;  ///< rounds asked as "added": beyond the planned ones
  int last_planned = 0;         ///< the last round's "planned": the rounds the record's budget is split over
  int opens_served = 0;
  int verifications = 0;  ///< opens that verified the size
  int hellos_served = 0;
  std::vector<int> chapters_planned;  ///< the chapter of each plan request (0: none named)
  /// Each warm request's variants, and how many came after the size's first round here.
  std::vector<std::vector<std::string>> warms;
  int warms_after_a_round = 0;
  int prepares_asked = 0;      ///< prepare requests, known or not
  int calibrations_asked = 0;  ///< calibrate requests, known or not
  std::vector<int> turns;      ///< each round's "turn", -1 where none was asked

 private:
  /// `verified`: whether the worker checked the variant's result (an open with "verify": false
  /// does not, and so never finds a wrong one).
  gpubench::record make_record(std::size_t v, std::int64_t n, bool verified = true) const {
    gpubench::record r;
    r.chapter = chapter_;
    r.pair = "fake";
    r.variant = build_.variants[v];
    r.size = gpubench::size_point({{"n", n}});
    r.declared.bytes = 1e6;
    r.timing.method = build_.host_timed ? gpubench::timing_method::host_wall : gpubench::timing_method::cuda_events;
    r.timing.source = build_.host_timed ? gpubench::time_source::host_wall : gpubench::time_source::cuda_events_net;
    r.check.result = v == 0 ? gpubench::disposition::reference : gpubench::disposition::passed;
    if (!verified) {
      r.check.result = gpubench::disposition::not_verified;
      r.check.message = "set up only";
    }
    for (const std::string& bad : build_.fail_verification)
      if (verified && bad == r.variant) {
        r.status = gpubench::record_status::failed;
        r.check.result = gpubench::disposition::incorrect;
        r.reason = "wrong result";
      }
    for (const std::string& big : build_.out_of_memory)
      if (big == r.variant) {
        r.status = gpubench::record_status::skipped;
        r.check.result = gpubench::disposition::not_verified;
        r.reason = "out of memory at this size: cudaErrorMemoryAllocation";
      }
    return r;
  }

  nlohmann::ordered_json with_records(std::vector<gpubench::record> records) const {
    gpubench::profile p;
    p.prov.gpubench_version = "test";
    p.prov.device.name = "Fake GPU";
    p.records = std::move(records);
    return {{"ok", true}, {"profile", gpubench::to_json(p)}};
  }

  nlohmann::ordered_json answer(const nlohmann::ordered_json& req) {
    const std::string op = req.value("op", "");
    if (op == "hello") {
      ++hellos_served;
      gpubench::profile p;
      p.prov.gpubench_version = "test";
      p.prov.device.name = "Fake GPU";
      return {{"ok", true}, {"protocol", gpubench::kWorkerProtocol}, {"profile", gpubench::to_json(p)}};
    }
    if (op == "plan") {
      // The chapter named, else 1: the fake's one pair is "fake" in whichever chapter is asked.
      const int asked = req.at("selection").value("chapter", 0);
      chapters_planned.push_back(asked);
      chapter_ = asked > 0 ? asked : 1;
      const std::string id = (chapter_ < 10 ? "ch0" : "ch") + std::to_string(chapter_) + "/fake";
      nlohmann::ordered_json items = nlohmann::ordered_json::array();
      for (std::int64_t n : build_.sizes)
        items.push_back(gpubench::to_json(
            gpubench::worker_item{id, "n=" + std::to_string(n), build_.variants, !build_.host_timed}));
      return {{"ok", true}, {"items", items}};
    }
    if (op == "calibrate") {
      ++calibrations_asked;
      if (!build_.knows_calibrate) return gpubench::worker_failure("unknown request 'calibrate'", 2);
      return {{"ok", true}, {"graph_replay_s", build_.calibrate_s * context_ * std::exp(world_.normal(0.002))}};
    }
    const std::size_t item = req.value("item", std::size_t{0});
    const std::int64_t n = build_.sizes.at(item);
    if (op == "open") {
      release();
      const bool verify = req.value("verify", true);
      std::vector<gpubench::record> out;
      for (std::size_t v = 0; v < build_.variants.size(); ++v) out.push_back(make_record(v, n, verify));
      if (world_.states_held >= world_.state_capacity) {
        for (auto& r : out) {
          r.status = gpubench::record_status::skipped;
          r.check.result = gpubench::disposition::not_verified;
          r.reason = "out of memory at this size: cudaErrorMemoryAllocation";
        }
      } else if (req.value("hold", true)) {
        holds_ = true;
        ++world_.states_held;
      }
      ++opens_served;
      if (verify) ++verifications;
      rounds_of_open_ = 0;
      nlohmann::ordered_json reply = with_records(std::move(out));
      if (verify) reply["warm"] = build_.cheap_to_warm;
      return reply;
    }
    if (op == "warm" && build_.knows_warm) {
      warms.push_back(req.at("variants").get<std::vector<std::string>>());
      if (rounds_of_open_ > 0) ++warms_after_a_round;
      return {{"ok", true}, {"warmed", warms.back().size()}};
    }
    if (op == "prepare") {
      ++prepares_asked;
      if (!build_.knows_prepare) return gpubench::worker_failure("unknown request 'prepare'", 2);
      world_.log.push_back("prepare " + name_ + " " + std::to_string(req.at("round").get<int>()));
      prepared_at_ = world_.rounds_taken;
      if (build_.prepare_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(build_.prepare_s));
      return {{"ok", true}, {"prepared", true}};
    }
    if (op == "finish") {
      std::vector<gpubench::record> out;
      for (std::size_t v = 0; v < build_.variants.size(); ++v) out.push_back(make_record(v, n));
      return with_records(std::move(out));
    }
    if (op == "close") {
      release();
      return {{"ok", true}};
    }
    if (op == "round") {
      // A worker that frees its state between rounds needs room for a fresh one now.
      if (!holds_ && world_.states_held >= world_.state_capacity)
        return gpubench::worker_failure("out of memory building a fresh state", 1);
      ++rounds_served;
      ++rounds_of_open_;
      world_.log.push_back("round " + name_ + " " + std::to_string(req.at("round").get<int>()));
      if (req.value("added", false)) ++added_rounds_served;
      turns.push_back(req.value("turn", -1));
      const bool slow_start = prepared_at_ && world_.rounds_taken == *prepared_at_;
      prepared_at_.reset();
      ++world_.rounds_taken;
      const bool turned = build_.knows_turn && req.contains("turn");
      const auto asked = req.at("variants");
      const auto nv = static_cast<int>(asked.size());
      const int start = (turned ? req.at("turn").get<int>() : req.at("round").get<int>()) % std::max(1, nv);
      last_planned = req.value("planned", 0);
      world_.tick += 1;
      const double drift = world_.drift(world_.tick);
      const bool held = req.contains("cpu");
      // One core draws nothing, so the noise of tests without cores stays as it was.
      const int core = held               ? req.at("cpu").get<int>()
                       : world_.cores > 1 ? std::uniform_int_distribution<int>(0, world_.cores - 1)(world_.rng)
                                          : 0;
      const double on_core = world_.core_speed(core, world_.tick);
      std::vector<gpubench::record> out;
      for (int j = 0; j < nv; ++j) {
        std::size_t v = 0;
        while (build_.variants[v] != asked[static_cast<std::size_t>(j)].get<std::string>()) ++v;
        gpubench::record r = make_record(v, n);
        const bool in_context = std::find(build_.context_variants.begin(), build_.context_variants.end(),
                                          build_.variants[v]) != build_.context_variants.end();
        const double level = (build_.seconds[v] * factor_ * (in_context ? context_ : 1.0) + add_s_) * drift * on_core *
                             std::exp(world_.normal(build_.round_sd));
        for (int s = 0; s < build_.samples_per_round; ++s) {
          const int in_turn = s * nv + (j - start + nv) % nv;  // its place in the round-robin
          const double paid = slow_start && in_turn < world_.slow_start_samples ? world_.slow_start : 1.0;
          r.timing.samples_s.push_back(level * paid * std::exp(world_.normal(build_.sample_sd)));
        }
        r.timing.rounds.push_back({.samples = r.timing.samples_s.size(), .wall_s = 0.01});
        r.timing.wall_s = 0.01;
        r.stats = gpubench::summarize(r.timing.samples_s);
        out.push_back(std::move(r));
      }
      nlohmann::ordered_json reply = with_records(std::move(out));
      if (held) reply["cpu"] = core;
      if (build_.round_s > 0) reply["round_s"] = build_.round_s;
      if (turned) reply["turn"] = req.at("turn");
      return reply;
    }
    return gpubench::worker_failure("unknown op " + op, 2);
  }

  void release() {
    if (holds_) --world_.states_held;
    holds_ = false;
  }

  world& world_;
  int chapter_ = 1;                  ///< the chapter of the last plan
  bool holds_ = false;               ///< whether this worker holds the open size's state
  int rounds_of_open_ = 0;           ///< rounds served since the last open
  std::optional<long> prepared_at_;  ///< world::rounds_taken when this worker last prepared
  build build_;
  double factor_;
  double add_s_;
  double context_ = 1.0;
  std::string name_;
  std::deque<nlohmann::ordered_json> replies_;
};

}  // namespace fake
