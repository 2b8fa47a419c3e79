// The run store as the commands use it (store_choice.hpp).
#include "store_choice.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "gpubench/profile_document.hpp"
#include "gpubench/device_query.hpp"
#include "gpubench/error.hpp"
#include "gpubench/run_refs.hpp"

namespace gpubench::app {

namespace fs = std::filesystem;

CLI::Option* add_db_option(CLI::App* cmd, std::string& db) {
  return cmd->add_option("--db", db,
                         "The run store: a SQLite file, a postgresql://USER@HOST/DB URL, or 'none' (default: "
                         "$GPUBENCH_DB, else $XDG_DATA_HOME/gpubench/runs.db or ~/.local/share/gpubench/runs.db). A "
                         "lock held by another writer is waited for GPUBENCH_DB_TIMEOUT seconds (default 30), then "
                         "exit 2. See docs/store.md");
}

std::unique_ptr<run_store> open_store_if_present(const std::string& db) {
  const store_location where = resolve_store_location(db);
  if (!run_store::exists(where)) return nullptr;
  return run_store::open(where, {.create = false, .timeout_s = store_timeout_from_env()});
}

std::string no_store_reason(const std::string& db) {
  const store_location where = resolve_store_location(db);
  if (where.kind == store_kind::none)
    return fmt::format("the run store is turned off ({})", where.origin == "--db" ? "--db none" : "GPUBENCH_DB=none");
  return fmt::format("there is no run store at {} yet (`gpubench run` records runs there)", where.display());
}

std::unique_ptr<run_store> open_store_for_choices(const std::string& db, bool optional, const std::string& hint) {
  try {
    return open_store_if_present(db);
  } catch (const error& e) {
    if (!optional) throw;
    throw error(e.code(), std::string(e.what()) + "; " + hint);
  }
}

std::unique_ptr<run_store> open_store_for_writing(const std::string& db) {
  const store_location where = resolve_store_location(db);
  if (where.kind == store_kind::none) return nullptr;
  return run_store::open(where, {.create = true, .timeout_s = store_timeout_from_env()});
}

run_recorder prepare_recording(const std::string& db, const std::vector<std::string>& tags) {
  run_recorder r;
  r.refs = detect_run_refs(tags, build_git_sha());
  r.store = open_store_for_writing(db);
  return r;
}

void record_run(run_recorder& recorder, const profile& p, std::FILE* out, const std::string& kept) {
  if (!recorder.store) return;
  try {
    // Timed, serialisation included, so that a real run shows what the store adds to its wall time
    // (scripts/analysis/store-overhead.sh --run).
    const auto start = std::chrono::steady_clock::now();
    const add_result stored = recorder.store->add(to_json(p), recorder.refs);
    const auto took = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::string refs;
    for (const auto& ref : recorder.refs) refs += (refs.empty() ? " under " : ", ") + ref.name;
    fmt::print(out, "store: run #{}{}{} in {} ({:.0f} ms)\n", stored.id,
               stored.added ? " recorded" : " (stored before)", refs, recorder.store->location().display(), took);
  } catch (const error& e) {
    throw error(e.code(), fmt::format("{}; the run's profile is kept in {}", e.what(), kept));
  }
}

std::string fit_line(const std::string& text, std::size_t columns) {
  std::vector<std::size_t> starts;  // the byte offset of each code point
  for (std::size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xc0) != 0x80) starts.push_back(i);
  if (starts.size() <= columns || columns == 0) return text;
  return text.substr(0, starts[columns - 1]) + "…";
}

namespace {

std::string started(const stored_run& r) {
  std::string time = r.started_at.substr(0, 16);
  std::replace(time.begin(), time.end(), 'T', ' ');
  return time;
}

std::string chapters_of(const stored_run& r) {
  std::string chapters;
  for (int c : r.chapters) chapters += (chapters.empty() ? "ch" : ",") + std::to_string(c);
  return chapters.empty() ? "no records" : chapters;
}

std::string refs_of(const stored_run& r) {
  std::string refs;
  for (const auto& ref : r.refs) refs += ", " + ref.name;
  return refs;
}

std::string sha_of(const stored_run& r) { return r.git_sha.empty() ? "no commit" : r.git_sha.substr(0, 7); }

/// "base: run #12, the previous comparable (3f2a9c1, 2026-11-22 03:29, NVIDIA H200, ch1, main)":
/// one line, the GPU model left out where it would take the line past 80 columns.
void say(std::FILE* out, const std::string& role, const stored_run& r, const std::string& why) {
  const std::string head = fmt::format("{}: run #{}, {} ({}, {}", role, r.id, why, sha_of(r), started(r));
  const std::string tail = fmt::format("{}{})", chapters_of(r), refs_of(r));
  std::string line = fmt::format("{}, {}, {}", head, r.gpu_model.empty() ? "unknown GPU" : r.gpu_model, tail);
  if (fit_line(line) != line) line = fmt::format("{}, {}", head, tail);
  fmt::print(out, "{}\n", fit_line(line));
}

chosen_profile from_file(const std::string& path) {
  chosen_profile c;
  const nlohmann::ordered_json j = read_profile_document(path);
  c.prof = profile_from_json(j, path);
  c.source = path;
  c.content_hash = profile_content_hash(j);
  c.options_digest = profile_options_digest(j.contains("options") ? j["options"] : nlohmann::ordered_json::object());
  return c;
}

chosen_profile from_run(run_store& store, const stored_run& r) {
  chosen_profile c;
  c.prof = store.load(r.id);
  c.source = fmt::format("run #{}", r.id);
  c.run = r;
  c.content_hash = r.content_hash;
  c.options_digest = r.options_digest;
  return c;
}

bool is_digits(const std::string& s) {
  return !s.empty() && s.size() <= 18 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
bool is_hex(const std::string& s) {
  return s.size() >= 4 && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
         });
}

/// The run among `runs` (newest first) that `comparable_to` is best compared with: not itself,
/// complete, on its GPU model with its options, newest first; then any complete one; then any.
const stored_run* pick(const std::vector<stored_run>& runs, const chosen_profile* comparable_to) {
  const auto other = [&](const stored_run& r) {
    return comparable_to == nullptr ||
           (r.content_hash != comparable_to->content_hash && (!comparable_to->run || comparable_to->run->id != r.id));
  };
  if (comparable_to != nullptr)
    for (const auto& r : runs)
      if (other(r) && r.complete && r.gpu_model == comparable_to->prof.prov.device.name &&
          r.options_digest == comparable_to->options_digest)
        return &r;
  for (const auto& r : runs)
    if (other(r) && r.complete) return &r;
  for (const auto& r : runs)
    if (other(r)) return &r;
  return nullptr;
}

/// The runs this machine made: its GPU's, else its host's, else the whole store's.
struct machine_scope {
  run_query query;
  std::string label;
};

machine_scope scope_of(run_store& store, int device) {
  run_query base;
  base.complete_only = true;
  base.mode = "measure";
  base.limit = 1;
  try {
    if (device_count() > device) {
      const device_info d = query_device(device);
      run_query q = base;
      q.gpu_uuid = d.uuid;
      if (!d.uuid.empty() && !store.runs(q).empty()) return {q, "the newest on this GPU"};
    }
  } catch (const error&) {  // no usable GPU: the host decides
  }
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') {
    run_query q = base;
    q.host = host;
    if (!store.runs(q).empty()) return {q, "the newest from this host"};
  }
  return {base, "the newest in the store"};
}

std::optional<stored_run> previous_of(run_store& store, const std::string& gpu_model, const std::string& digest,
                                      const std::string& started_at, std::int64_t exclude_id,
                                      const std::string& exclude_hash) {
  run_query q;
  q.gpu_model = gpu_model;
  q.options_digest = digest;
  q.started_before = started_at;
  q.exclude_id = exclude_id;
  q.complete_only = true;
  q.mode = "measure";
  q.limit = 2;
  for (auto& r : store.runs(q))
    if (r.content_hash != exclude_hash) return r;
  return std::nullopt;
}

}  // namespace

bool names_file(const std::string& ref) {
  if (ref.rfind("file:", 0) == 0) return true;
  if (ref.rfind("run:", 0) == 0 || ref.rfind("#", 0) == 0 || ref.rfind("sha:", 0) == 0 || ref.rfind("ref:", 0) == 0)
    return false;
  std::error_code ec;
  return fs::exists(fs::symlink_status(ref, ec)) || ref.find('/') != std::string::npos ||
         fs::path(ref).extension() == ".json";
}

chosen_profile resolve_profile(run_store* store, const std::string& ref, const std::string& role, std::FILE* out,
                               const chosen_profile* comparable_to) {
  enum class kind { any, id, sha, name };
  kind k = kind::any;
  std::string value = ref;
  for (const auto& [prefix, as] :
       {std::pair{"file:", kind::any}, {"run:", kind::id}, {"#", kind::id}, {"sha:", kind::sha}, {"ref:", kind::name}})
    if (ref.rfind(prefix, 0) == 0) {
      value = ref.substr(std::string(prefix).size());
      if (std::string(prefix) == "file:") return from_file(value);
      k = as;
      break;
    }
  if (k == kind::any && names_file(value))
    return from_file(value);  // an existing file, or something meant as one: the reader says what is wrong
  if (store == nullptr)
    throw usage_error(fmt::format("{}: no such file, and no run store to look it up in (--db, GPUBENCH_DB): pass a "
                                  "profile file, or record runs with `gpubench run`",
                                  ref));

  std::optional<stored_run> by_id;
  if ((k == kind::any || k == kind::id) && is_digits(value)) by_id = store->run(std::stoll(value));
  if (k == kind::id && !by_id)
    throw usage_error(fmt::format("{}: the run store {} holds no run #{} (`gpubench history` lists them)", ref,
                                  store->location().display(), value));
  std::vector<stored_run> by_sha, by_name;
  if ((k == kind::any || k == kind::sha) && is_hex(value)) {
    run_query q;
    q.git_sha_prefix = value;
    by_sha = store->runs(q);
  }
  if (k == kind::any || k == kind::name) {
    run_query q;
    q.ref = value;
    by_name = store->runs(q);
  }
  const int kinds = (by_id ? 1 : 0) + (by_sha.empty() ? 0 : 1) + (by_name.empty() ? 0 : 1);
  if (kinds > 1)
    throw usage_error(fmt::format("{} names more than one thing in the run store ({}{}{}): say #{} for the run id, "
                                  "sha:{} for the commit or ref:{} for the branch or tag",
                                  ref, by_id ? "a run id, " : "", by_sha.empty() ? "" : "a git sha, ",
                                  by_name.empty() ? "" : "a branch or tag", value, value, value));
  if (by_id) {
    say(out, role, *by_id, "as named");
    return from_run(*store, *by_id);
  }
  const bool sha = !by_sha.empty();
  const std::vector<stored_run>& matches = sha ? by_sha : by_name;
  const stored_run* chosen = pick(matches, comparable_to);
  if (chosen == nullptr)
    throw usage_error(fmt::format("{} is no file, and no other run of the run store {} has that id, git sha, branch "
                                  "or tag (`gpubench history` lists them)",
                                  ref, store->location().display()));
  say(out, role, *chosen, fmt::format("the newest {} {}", sha ? "at commit" : "under", value));
  return from_run(*store, *chosen);
}

std::pair<std::vector<stored_run>, std::string> machine_runs(run_store& store, std::size_t limit, int device) {
  machine_scope scope = scope_of(store, device);
  scope.query.limit = limit;
  return {store.runs(scope.query), scope.label};
}

chosen_profile choose_run(run_store& store, const stored_run& r, const std::string& role, const std::string& why,
                          std::FILE* out) {
  say(out, role, r, why);
  return from_run(store, r);
}

chosen_profile newest_profile(run_store& store, const std::string& role, std::FILE* out, int device) {
  const machine_scope scope = scope_of(store, device);
  const auto runs = store.runs(scope.query);
  if (runs.empty())
    throw usage_error(fmt::format("the run store {} holds no complete measured run: `gpubench run --chapter 1` "
                                  "records one, and `gpubench history import FILE...` adds saved profiles",
                                  store.location().display()));
  say(out, role, runs.front(), scope.label);
  return from_run(store, runs.front());
}

std::pair<chosen_profile, chosen_profile> newest_pair(run_store& store, std::FILE* out, int device) {
  machine_scope scope = scope_of(store, device);
  scope.query.limit = 200;
  const auto candidates = store.runs(scope.query);
  if (candidates.empty())
    throw usage_error(fmt::format("the run store {} holds no complete measured run to compare: `gpubench run "
                                  "--chapter 1`, twice, records two",
                                  store.location().display()));
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const stored_run& r = candidates[i];
    const auto prev = previous_of(store, r.gpu_model, r.options_digest, r.started_at, r.id, r.content_hash);
    if (!prev) continue;
    if (i > 0)
      fmt::print(out, "{}\n",
                 fit_line(fmt::format("note: run #{} has no earlier run with its GPU model and options",
                                      candidates.front().id)));
    say(out, "new", r, i == 0 ? scope.label : "the newest comparable");
    say(out, "base", *prev, "the previous comparable");
    return {from_run(store, r), from_run(store, *prev)};
  }
  throw usage_error(fmt::format("none of the {} newest runs in the run store {} has an earlier run with the same GPU "
                                "model and options to compare with: run the same command again, or name the base "
                                "with --base REF",
                                candidates.size(), store.location().display()));
}

std::optional<chosen_profile> previous_comparable(run_store& store, const chosen_profile& next, std::FILE* out) {
  const auto prev = previous_of(store, next.prof.prov.device.name, next.options_digest, next.prof.prov.started_at,
                                next.run ? next.run->id : 0, next.content_hash);
  if (!prev) return std::nullopt;
  say(out, "base", *prev, "the previous comparable");
  return from_run(store, *prev);
}

std::vector<profile> base_history(run_store& store, const chosen_profile& base, const chosen_profile& next,
                                  std::FILE* out, std::vector<std::string>& sources, std::size_t limit) {
  run_query q;
  q.gpu_model = base.prof.prov.device.name;
  q.options_digest = base.options_digest;
  q.started_before = base.prof.prov.started_at;
  q.complete_only = true;
  q.mode = "measure";
  q.limit = 500;
  std::set<std::string> branches;
  if (base.run)
    for (const auto& r : base.run->refs)
      if (r.kind == "branch") branches.insert(r.name);
  const std::string& sha = base.prof.prov.git_sha;
  std::vector<profile> history;
  std::string ids;
  for (const auto& r : store.runs(q)) {
    if (history.size() == limit) break;
    if (r.content_hash == base.content_hash || r.content_hash == next.content_hash) continue;
    if ((base.run && r.id == base.run->id) || (next.run && r.id == next.run->id)) continue;
    const bool same_commit = !sha.empty() && r.git_sha == sha;
    const bool same_branch =
        std::any_of(r.refs.begin(), r.refs.end(), [&](const run_ref& x) { return branches.count(x.name) > 0; });
    if (!same_commit && !same_branch) continue;
    history.push_back(store.load(r.id));
    sources.push_back(fmt::format("run #{}", r.id));
    ids += (ids.empty() ? "#" : ", #") + std::to_string(r.id);
  }
  if (history.empty())
    fmt::print(out, "{}\n", fit_line("history: none in the store (no earlier run of the base's commit or branch)"));
  else
    fmt::print(out, "{}\n",
               fit_line(fmt::format("history: run{} {} (the base's lineage; --no-history leaves {} out)",
                                    history.size() == 1 ? "" : "s", ids, history.size() == 1 ? "it" : "them")));
  return history;
}

compare_inputs choose_compare_inputs(run_store* store, const std::string& db, const std::string& base_ref,
                                     const std::string& new_ref, const std::vector<std::string>& history_refs,
                                     bool no_history, std::FILE* out) {
  const bool wants_history = !no_history && history_refs.empty();
  const auto need_store = [&](const char* why) -> run_store& {
    if (store) return *store;
    throw usage_error(fmt::format("{} needs the run store, and there is none at {}: `gpubench run` records runs "
                                  "there, `gpubench history import FILE...` adds saved ones; or name two profiles",
                                  why, resolve_store_location(db).display()));
  };
  compare_inputs in;
  if (base_ref.empty() && new_ref.empty()) {
    auto [next, base] = newest_pair(need_store("compare without profiles"), out);
    in.next = std::move(next);
    in.base = std::move(base);
  } else {
    in.next = new_ref.empty() ? newest_profile(need_store("compare without NEW"), "new", out)
                              : resolve_profile(store, new_ref, "new", out);
    if (!base_ref.empty()) {
      in.base = resolve_profile(store, base_ref, "base", out, &in.next);
    } else {
      auto prev = previous_comparable(need_store("compare without BASE"), in.next, out);
      if (!prev)
        throw usage_error(fmt::format("the run store has no run before {} with its GPU model and options: name the "
                                      "base with --base REF",
                                      in.next.source));
      in.base = std::move(*prev);
    }
  }
  for (const auto& h : history_refs) {
    in.history.push_back(resolve_profile(store, h, "history", out, &in.base).prof);
    in.history_sources.push_back(h);
  }
  if (wants_history && store) in.history = base_history(*store, in.base, in.next, out, in.history_sources);
  return in;
}

std::vector<record_trend> report_trends(run_store& store, const chosen_profile& shown, const chosen_profile* base) {
  const auto stored_id = [&](const chosen_profile& c) -> std::optional<std::int64_t> {
    if (c.run) return c.run->id;
    run_query q;
    q.content_hash = c.content_hash;
    const auto found = store.runs(q);
    return found.empty() ? std::nullopt : std::optional<std::int64_t>(found.front().id);
  };
  series_query q;
  q.gpu_model = shown.prof.prov.device.name;
  q.options_digest = shown.options_digest;
  std::vector<record_trend> trends = record_trends(store, q, 3);
  std::set<std::string> ids;
  for (const record& r : shown.prof.records) ids.insert(r.id());
  std::erase_if(trends, [&](const record_trend& t) { return ids.count(t.series.record_id) == 0; });
  const auto shown_id = stored_id(shown);
  const auto base_id = base != nullptr ? stored_id(*base) : std::nullopt;
  for (auto& t : trends) {
    t.new_run = shown_id;
    t.base_run = base_id;
  }
  return trends;
}

}  // namespace gpubench::app
