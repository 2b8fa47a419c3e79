// `gpubench worker`: the measuring end of `run --processes` and `gpubench ab`. It reads one JSON
// request per line on stdin and answers each with one JSON line (gpubench/worker_protocol.hpp).
// Hidden from --help: people start `run --processes` or `ab`, which start this.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpubench/ceilings.hpp"
#include "gpubench/ceilings_cache.hpp"
#include "gpubench/context_level.hpp"
#include "gpubench/cpu_affinity.hpp"
#include "gpubench/device_query.hpp"
#include "gpubench/error.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/registry.hpp"
#include "gpubench/runner.hpp"
#include "gpubench/sampling.hpp"
#include "gpubench/worker_protocol.hpp"

namespace gpubench::app {

CLI::App* add_worker(CLI::App& app, worker_args& a) {
  auto* cmd = app.add_subcommand("worker", "Measure for a coordinator (run --processes, ab) over stdin/stdout");
  cmd->group("");  // hidden: not a command people type
  cmd->add_option("--device", a.device, "CUDA device ordinal (default 0)")->check(CLI::NonNegativeNumber);
  return cmd;
}

namespace {

using ojson = nlohmann::ordered_json;

/// A request line longer than this is not a coordinator talking.
constexpr std::size_t kMaxRequestBytes = 1u << 20;

class worker_server {
 public:
  explicit worker_server(int device) : device_(device) {}

  /// The reply to one request; errors become failure replies, so the coordinator hears every one.
  ojson handle(const ojson& req, bool& done) {
    try {
      const std::string op = req.value("op", "");
      if (op == "hello") return hello(req);
      if (op == "plan") return plan(req);
      if (op == "open") return open(req);
      if (op == "warm") return warm(req);
      if (op == "prepare") return prepare(req);
      if (op == "calibrate") return {{"ok", true}, {"graph_replay_s", context_graph_level_s(device_)}};
      if (op == "round") return round(req);
      if (op == "finish") return finish(req);
      if (op == "close") {
        if (runner_) runner_->close_size();
        return {{"ok", true}};
      }
      if (op == "bye") {
        done = true;
        return {{"ok", true}};
      }
      return worker_failure(fmt::format("unknown request '{}'", op), static_cast<int>(exit_code::usage));
    } catch (const error& e) {
      return worker_failure(e.what(), static_cast<int>(e.code()));
    } catch (const std::exception& e) {
      return worker_failure(e.what(), static_cast<int>(exit_code::runtime_failure));
    }
  }

 private:
  ojson with_records(std::vector<record> records) const {
    profile p = base_;
    p.records = std::move(records);
    return {{"ok", true}, {"profile", to_json(p)}};
  }

  ojson hello(const ojson& req) {
    if (req.value("protocol", -1) != kWorkerProtocol)
      return worker_failure(fmt::format("this worker speaks protocol {}", kWorkerProtocol),
                            static_cast<int>(exit_code::usage));
    base_.prov.gpubench_version = version_string();
    base_.prov.git_sha = build_git_sha();
    base_.prov.device = query_device(device_);
    if (auto cached = load_cached_ceilings(base_.prov.device)) base_.ceil = *cached;
    else base_.ceil = theoretical_ceilings(base_.prov.device);
    return {{"ok", true},
            {"protocol", kWorkerProtocol},
            {"gpubench", version_string()},
            {"git_sha", build_git_sha()},
            {"profile", to_json(base_)}};
  }

  ojson plan(const ojson& req) {
    const worker_selection sel = selection_from_json(req.at("selection"));
    const worker_timing timing = timing_from_json(req.at("timing"));
    run_options o;
    o.stopping = timing.total;
    o.warmup_runs = timing.warmup_runs;
    o.rest_ratio = timing.rest_ratio;
    o.gpu_busy_time = timing.gpu_busy;
    o.replace_memory = timing.replace_memory;
    o.restream = true;  // a worker's record takes many rounds, which average the streams' draws
    o.seed = timing.seed;
    o.smallest = sel.smallest;
    o.metrics = timing.metrics;
    o.metrics_per_kernel = timing.metrics_per_kernel;
    pairs_ = resolve_selection(sel.chapter > 0 ? std::vector<int>{sel.chapter} : std::vector<int>{}, sel.pairs,
                               sel.axes, sel.variants, o);
    // A new plan (the next chapter of `ab` or `run --processes`) starts from a fresh runner, in the
    // context this process already holds, with no size open.
    open_.reset();
    runner_.emplace(device_, o);
    base_.ceil = runner_->device_ceilings();
    items_.clear();
    ojson items = ojson::array();
    for (const pair_def* def : pairs_)
      for (const size_point& z : planned_sizes(def->axes, o.smallest, o.axis_overrides, def->id())) {
        worker_item item{def->id(), z.to_string(), {}, true};
        for (const variant_def& v : def->variants) item.variants.push_back(v.name);
        const bytes_path path = def->work_model ? def->work_model(z).path : bytes_path::dram;
        item.redraws = rounds_redraw_process_noise(def->timing == timing_method::host_wall, path);
        items.push_back(to_json(item));
        items_.emplace_back(def, z);
      }
    return {{"ok", true}, {"items", std::move(items)}};
  }

  std::size_t item_of(const ojson& req) const {
    if (!runner_) throw usage_error("no plan yet: send plan before open, warm, prepare, round, finish or close");
    const auto it = req.find("item");
    if (it == req.end() || !it->is_number_unsigned() || it->get<std::size_t>() >= items_.size())
      throw usage_error("the request names no item of the plan");
    return it->get<std::size_t>();
  }

  ojson open(const ojson& req) {
    const std::size_t i = item_of(req);
    open_ = i;
    run_observer quiet;
    // "hold": false frees the state once verified and after every round; "verify": false sets the
    // size up without verifying it (runner::open_size).
    const auto flag = [&](const char* name) {
      const auto it = req.find(name);
      return it == req.end() || !it->is_boolean() || it->get<bool>();
    };
    ojson reply =
        with_records(runner_->open_size(*items_[i].first, items_[i].second, quiet, flag("hold"), flag("verify")));
    // What the build's other workers may run once before their first round (runner::cheap_to_warm).
    if (flag("verify")) reply["warm"] = runner_->cheap_to_warm();
    return reply;
  }

  ojson warm(const ojson& req) {
    const std::size_t i = item_of(req);
    require_open(i);
    const auto names = req.find("variants");
    if (names == req.end() || !names->is_array()) throw usage_error("warm names no variants");
    std::vector<std::string> variants;
    for (const auto& v : *names)
      if (v.is_string()) variants.push_back(v.get<std::string>());
    return {{"ok", true}, {"warmed", runner_->warm_open_size(variants)}};
  }

  void require_open(std::size_t i) const {
    if (!open_ || *open_ != i) throw usage_error("the item is not open: send open first");
  }

  ojson prepare(const ojson& req) {
    const std::size_t i = item_of(req);
    require_open(i);
    const auto round = req.find("round");
    if (round == req.end() || !round->is_number_unsigned()) throw usage_error("prepare names no round");
    return {{"ok", true}, {"prepared", runner_->prepare_open_round(round->get<int>())}};
  }

  ojson round(const ojson& req) {
    const std::size_t i = item_of(req);
    require_open(i);
    std::vector<std::string> variants;
    for (const auto& v : req.at("variants")) variants.push_back(v.get<std::string>());
    // The CPU to hold the samples on, when the coordinator names one this process may use: the
    // echo tells it the round was held there.
    int cpu = -1;
    if (const auto c = req.find("cpu"); c != req.end() && c->is_number_integer()) {
      const std::vector<int> mine = allowed_cpus();
      if (std::find(mine.begin(), mine.end(), c->get<int>()) != mine.end()) cpu = c->get<int>();
    }
    const auto added = req.find("added");
    // The variant the round-robin starts at, when the coordinator names one (the echo says it was
    // taken); otherwise the round's own index.
    std::optional<int> turn;
    if (const auto t = req.find("turn");
        t != req.end() && t->is_number_unsigned() && t->get<std::uint64_t>() <= 1u << 30)
      turn = t->get<int>();
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<record> timed =
        runner_->measure_open_round(req.at("round").get<int>(), req.at("planned").get<int>(), variants, cpu,
                                    added != req.end() && added->is_boolean() && added->get<bool>(), turn);
    // The round's whole time in this process: its fresh state and empty span beside the samples,
    // which the coordinator reports as `ab`'s cost.
    ojson reply = with_records(std::move(timed));
    reply["round_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (cpu >= 0) reply["cpu"] = cpu;
    if (turn) reply["turn"] = *turn;
    return reply;
  }

  ojson finish(const ojson& req) {
    const std::size_t i = item_of(req);
    require_open(i);
    std::vector<std::pair<std::string, double>> medians;
    for (const auto& [name, value] : req.at("medians").items()) medians.emplace_back(name, value.get<double>());
    return with_records(runner_->finish_open_size(medians));
  }

  int device_;
  profile base_;
  std::vector<const pair_def*> pairs_;
  std::vector<std::pair<const pair_def*, size_point>> items_;
  std::optional<runner> runner_;
  std::optional<std::size_t> open_;
};

}  // namespace

int run_worker(const worker_args& a) {
  // The protocol owns the original stdout; anything else that prints there (a library's notice)
  // goes to stderr, the worker's log, instead of into a reply.
  const int protocol_fd = ::dup(STDOUT_FILENO);
  if (protocol_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
    throw runtime_error("worker: cannot set up its output");
  std::FILE* replies = ::fdopen(protocol_fd, "w");
  if (replies == nullptr) throw runtime_error("worker: cannot set up its output");
  worker_server server(a.device);
  bool done = false;
  for (std::string line; !done && std::getline(std::cin, line);) {
    ojson reply;
    if (line.size() > kMaxRequestBytes) {
      reply = worker_failure("request line too long", static_cast<int>(exit_code::usage));
    } else {
      const ojson req = ojson::parse(line, nullptr, false);
      reply = req.is_object() ? server.handle(req, done)
                              : worker_failure("a request must be one JSON object", static_cast<int>(exit_code::usage));
    }
    const std::string text = reply.dump() + "\n";
    if (std::fwrite(text.data(), 1, text.size(), replies) != text.size() || std::fflush(replies) != 0) break;
  }
  std::fclose(replies);
  return 0;
}

}  // namespace gpubench::app
