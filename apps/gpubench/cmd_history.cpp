// `gpubench history`: the run store's runs, a record's series over them, and where records changed
// level (--changes, E-Divisive means: gpubench/change_points.hpp). import/export: cmd_history_io.cpp.
#include <fmt/format.h>

#include "commands.hpp"
#include "gpubench/error.hpp"
#include "gpubench/format.hpp"
#include "gpubench/trend.hpp"
#include "store_choice.hpp"

namespace gpubench::app {

int run_history_import(const history_args& a);
int run_history_export(const history_args& a);

history_commands add_history(CLI::App& app, history_args& a) {
  auto* cmd = app.add_subcommand(
      "history", "The run store (docs/store.md): the runs it holds, newest first; with --record, a record's series "
                 "over them; with --changes, where records changed level (E-Divisive means, with each shift's size "
                 "and interval). `history import` stores saved profiles, `history export` writes one back");
  cmd->add_option("--chapter", a.chapter, "Only this chapter's runs and records")->check(CLI::Range(1, 99));
  cmd->add_option("--record", a.record,
                  "A record id, or the start of one (ch01/batched_gemm): its series, one per GPU model and options, "
                  "oldest run first, change points marked");
  cmd->add_option("--gpu", a.gpu, "Only runs on this GPU model, or models whose name holds this (H100)");
  cmd->add_option("--ref", a.ref, "Only runs recorded under this branch or tag (the run list)");
  cmd->add_option("--limit", a.limit, "List at most N runs (default 20)")->check(CLI::Range(1, 1000000));
  cmd->add_flag("--changes", a.changes,
                "Find the runs where each record's median shifted (E-Divisive means: bisection on the energy "
                "statistic, each split kept at p <= 0.001 in a permutation test; series of 6 runs or more), with "
                "the shift and its 95% interval");
  cmd->add_flag("--json", a.json, "Print JSON instead of the tables");
  add_db_option(cmd, a.db);
  cmd->require_subcommand(0, 1);
  cmd->footer(kExitCodeFooter);

  auto* imp = cmd->add_subcommand("import",
                                  "Store saved profiles: files, or folders searched for *.json. Every file is read and "
                                  "validated before anything is stored; one stored already is not stored again");
  imp->add_option("paths", a.paths, "Profiles (JSON) or folders")->required();
  imp->add_option("--tag", a.tags, "Also file them under this name (repeatable), for `compare --base NAME`");
  add_db_option(imp, a.db);
  imp->footer(kExitCodeFooter);

  auto* exp = cmd->add_subcommand("export", "Write a stored run back as its profile (JSON), validated on the way out");
  exp->add_option("run", a.run, "The run: #ID (or ID), a git sha, or a branch or tag (its newest run)")->required();
  exp->add_option("--out", a.out, "Where to write (default '-': stdout); replaced atomically");
  exp->add_flag("--force", a.force,
                "Replace a read-only --out or write through a symbolic link (refused otherwise, exit 2)");
  add_db_option(exp, a.db);
  exp->footer(kExitCodeFooter);
  return {cmd, imp, exp};
}

namespace {

std::string when(const std::string& iso) {
  std::string t = iso.substr(0, 16);
  for (char& c : t)
    if (c == 'T') c = ' ';
  return t;
}

std::string shift(double ratio) { return fmt::format("{:+.1f}%", (ratio - 1) * 100); }

nlohmann::ordered_json run_json(const stored_run& r) {
  nlohmann::ordered_json refs = nlohmann::ordered_json::array();
  for (const auto& ref : r.refs) refs.push_back({{"name", ref.name}, {"kind", ref.kind}});
  return {{"id", r.id},
          {"started_at", r.started_at},
          {"gpu_model", r.gpu_model},
          {"gpu_uuid", r.gpu_uuid},
          {"host", r.host},
          {"git_sha", r.git_sha},
          {"refs", refs},
          {"chapters", r.chapters},
          {"options_digest", r.options_digest},
          {"records", r.records},
          {"complete", r.complete},
          {"mode", r.mode}};
}

nlohmann::ordered_json trend_json(const record_trend& t) {
  nlohmann::ordered_json points = nlohmann::ordered_json::array(), changes = nlohmann::ordered_json::array();
  for (const auto& p : t.series.points)
    points.push_back(
        {{"run", p.run_id}, {"started_at", p.started_at}, {"git_sha", p.git_sha}, {"median_s", p.median_s}});
  for (const auto& c : t.changes) {
    const auto& p = t.series.points[c.index];
    changes.push_back({{"run", p.run_id},
                       {"started_at", p.started_at},
                       {"git_sha", p.git_sha},
                       {"index", c.index},
                       {"ratio", c.ratio},
                       {"ratio_low", c.ratio_low},
                       {"ratio_high", c.ratio_high},
                       {"before_s", c.before},
                       {"after_s", c.after},
                       {"p_value", c.p_value}});
  }
  return {{"record", t.series.record_id},
          {"chapter", t.series.chapter},
          {"gpu_model", t.series.gpu_model},
          {"options_digest", t.series.options_digest},
          {"points", points},
          {"changes", changes}};
}

void print_change(const record_trend& t, const change_point& c) {
  const auto& p = t.series.points[c.index];
  fmt::print("{}\n", fit_line(fmt::format("  change at run #{} ({} {}): {} [{}, {}], {} -> {}, p = {:.3f}", p.run_id,
                                          p.git_sha.substr(0, 7), when(p.started_at), shift(c.ratio),
                                          shift(c.ratio_low), shift(c.ratio_high), format_duration(c.before),
                                          format_duration(c.after), c.p_value)));
}

void print_series(const record_trend& t) {
  fmt::print("{}\n  {}, options {}: {} run{}\n", t.series.record_id, t.series.gpu_model, t.series.options_digest,
             t.series.points.size(), t.series.points.size() == 1 ? "" : "s");
  fmt::print("  {:<7} {:<16}  {:<7}  {:>12}  {:>8}\n", "run", "started (UTC)", "commit", "median", "vs first");
  const double first = t.series.points.front().median_s;
  for (std::size_t i = 0; i < t.series.points.size(); ++i) {
    const auto& p = t.series.points[i];
    bool change = false;
    for (const auto& c : t.changes) change = change || c.index == i;
    fmt::print("{} {:<7} {:<16}  {:<7}  {:>12}  {:>8}\n", change ? ">" : " ", fmt::format("#{}", p.run_id),
               when(p.started_at), p.git_sha.substr(0, 7), format_duration(p.median_s), shift(p.median_s / first));
  }
  for (const auto& c : t.changes) print_change(t, c);
}

}  // namespace

int run_history(const history_commands& cmds, const history_args& a) {
  if (cmds.import->parsed()) return run_history_import(a);
  if (cmds.exporter->parsed()) return run_history_export(a);
  const auto store = open_store_if_present(a.db);
  if (!store) {
    const store_location where = resolve_store_location(a.db);
    if (where.kind == store_kind::none) throw usage_error("history: the run store is turned off (--db none)");
    if (where.origin != "default")
      throw usage_error(
          fmt::format("no run store at {} ({}): `gpubench run` records runs there", where.display(), where.origin));
    fmt::print("store: none yet at {}; `gpubench run` records every run there\n", where.display());
    return 0;
  }
  if (a.record.empty() && !a.changes) {
    run_query q;
    if (!a.gpu.empty()) q.gpu_model_like = a.gpu;
    if (!a.ref.empty()) q.ref = a.ref;
    q.chapter = a.chapter;
    q.limit = a.limit;
    const auto runs = store->runs(q);
    if (a.json) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const auto& r : runs) list.push_back(run_json(r));
      fmt::print("{}\n", nlohmann::ordered_json{{"store", store->location().display()}, {"runs", list}}.dump(2));
      return 0;
    }
    const std::size_t stored = store->count();
    fmt::print("store: {} ({} run{}); {} shown, newest first\n", store->location().display(), stored,
               stored == 1 ? "" : "s", runs.size());
    if (runs.empty()) return 0;
    fmt::print("{:<6} {:<16}  {:<22}  {:<6}  {:<7}  {}\n", "run", "started (UTC)", "GPU", "ch", "commit", "refs");
    for (const auto& r : runs) {
      std::string chapters, refs;
      for (int c : r.chapters) chapters += (chapters.empty() ? "" : ",") + std::to_string(c);
      for (const auto& ref : r.refs) refs += (refs.empty() ? "" : ",") + ref.name;
      fmt::print("{}\n", fit_line(fmt::format("{:<6} {:<16}  {:<22}  {:<6}  {:<7}  {}{}", fmt::format("#{}", r.id),
                                              when(r.started_at), fit_line(r.gpu_model, 22), fit_line(chapters, 6),
                                              r.git_sha.substr(0, 7), refs, r.complete ? "" : " (incomplete)")));
    }
    return 0;
  }
  series_query q;
  q.chapter = a.chapter;
  if (!a.record.empty()) q.record_prefix = a.record;
  if (!a.gpu.empty()) q.gpu_model_like = a.gpu;
  auto trends = record_trends(*store, q, a.changes ? 6 : 1);
  const std::size_t analyzed = trends.size();
  if (a.changes) std::erase_if(trends, [](const record_trend& t) { return t.changes.empty(); });
  if (a.json) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& t : trends) list.push_back(trend_json(t));
    fmt::print("{}\n", nlohmann::ordered_json{{"store", store->location().display()}, {"series", list}}.dump(2));
    return 0;
  }
  if (!a.changes) {
    if (trends.empty())
      throw usage_error(fmt::format("history: no stored record matches '{}'{}: `gpubench history` lists the runs",
                                    a.record, a.gpu.empty() ? "" : " on " + a.gpu));
    for (const auto& t : trends) print_series(t);
    return 0;
  }
  std::size_t count = 0;
  for (const auto& t : trends) {
    fmt::print("{} ({}, {} runs)\n", t.series.record_id, t.series.gpu_model, t.series.points.size());
    for (const auto& c : t.changes) print_change(t, c);
    count += t.changes.size();
  }
  fmt::print("history --changes: {} change point{} in {} record series of 6 runs or more\n", count,
             count == 1 ? "" : "s", analyzed);
  return 0;
}

}  // namespace gpubench::app
