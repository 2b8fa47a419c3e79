#pragma once
// The run store as the commands use it: the --db option, opening the store, and the runs gpubench
// chooses for the user (the newest, the previous comparable one, a base's history), each choice
// printed on one line so that a CI log shows what was compared (docs/store.md).
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "gpubench/profile.hpp"
#include "gpubench/store.hpp"
#include "gpubench/trend.hpp"

namespace gpubench::app {

/// Adds --db to `cmd`; its help names GPUBENCH_DB and GPUBENCH_DB_TIMEOUT.
CLI::Option* add_db_option(CLI::App* cmd, std::string& db);

/// The store for reading: nullptr when it is turned off or no SQLite file is there yet (read-only
/// commands never create one).
std::unique_ptr<run_store> open_store_if_present(const std::string& db);
/// Why open_store_if_present gave nullptr, for an error message: "the run store is turned off
/// (GPUBENCH_DB=none)" or "there is no run store at PATH yet (`gpubench run` records runs there)".
std::string no_store_reason(const std::string& db);
/// As open_store_if_present, for choosing profiles. When `optional` (the user named every profile,
/// so the store only adds history or trends), a store that fails to open is still an error, and its
/// message ends with `hint`: how to go on without the store.
std::unique_ptr<run_store> open_store_for_choices(const std::string& db, bool optional, const std::string& hint);
/// The store for writing, created when missing: nullptr when turned off.
std::unique_ptr<run_store> open_store_for_writing(const std::string& db);

/// What `run` records its profiles under: the store (opened, or created, now: a store that cannot
/// be written fails before any GPU work) and the branch and tag names (gpubench/run_refs.hpp).
/// `store` is nullptr with --db none.
struct run_recorder {
  std::unique_ptr<run_store> store;
  std::vector<run_ref> refs;
};
run_recorder prepare_recording(const std::string& db, const std::vector<std::string>& tags);
/// Stores a finished run's profile and prints "store: run #N recorded in LOCATION" to `out`.
/// `kept`: where the profile went, named in the error when storing fails.
void record_run(run_recorder& recorder, const profile& p, std::FILE* out, const std::string& kept);

/// A profile the user named or gpubench chose, from a file or the store.
struct chosen_profile {
  profile prof;
  std::string source;             ///< how reports name it: the file, or "run #12"
  std::optional<stored_run> run;  ///< when it came from the store
  std::string content_hash;
  std::string options_digest;
};

/// Whether resolve_profile reads REF as a file without asking the store: "file:PATH", an existing
/// path, or something meant as one (a '/' in it, or a .json name).
bool names_file(const std::string& ref);

/// A profile named by REF: an existing file; else a stored run: `#N` or `run:N` (its id; a bare
/// number too), a git sha of 4 or more hex digits (`sha:` to insist), or a branch or tag name
/// recorded at run time (`ref:` to insist). Several runs matching: the newest comparable to
/// `comparable_to` (same GPU model and options) when there is one, else the newest. A choice among
/// runs is printed to `out` as "`role`: run #N, why: what". Throws usage_error naming REF when
/// nothing matches, or a bare REF matches both a run id or sha and a name.
chosen_profile resolve_profile(run_store* store, const std::string& ref, const std::string& role, std::FILE* out,
                               const chosen_profile* comparable_to = nullptr);

/// The newest complete measured run on this machine: on this GPU (device `device`'s UUID) when
/// one is visible and the store has its runs, else from this host, else the newest in the store.
/// Printed to `out` as `role`. Throws usage_error when the store holds no such run.
chosen_profile newest_profile(run_store& store, const std::string& role, std::FILE* out, int device = 0);

/// The complete measured runs newest_profile chooses among, newest first (up to `limit`), and
/// why they are the ones ("the newest on this GPU", ...): for commands that pass over runs they
/// cannot use. choose_run loads one and prints the choice.
std::pair<std::vector<stored_run>, std::string> machine_runs(run_store& store, std::size_t limit, int device = 0);
chosen_profile choose_run(run_store& store, const stored_run& r, const std::string& role, const std::string& why,
                          std::FILE* out);

/// `compare` with no profiles: the newest run and the previous comparable one (same GPU model and
/// options), walking back from the newest run to one that has such a predecessor, both printed.
std::pair<chosen_profile, chosen_profile> newest_pair(run_store& store, std::FILE* out, int device = 0);
/// The newest complete run before `next` comparable to it, printed as "base"; nullopt when none.
std::optional<chosen_profile> previous_comparable(run_store& store, const chosen_profile& next, std::FILE* out);

/// Earlier runs of `base` to estimate its records' drift: complete runs on the same GPU model with
/// the same options, started before it, of its lineage (the same commit, or a branch the base was
/// recorded under), never `next` itself; up to `limit`, newest first. Printed as one line.
std::vector<profile> base_history(run_store& store, const chosen_profile& base, const chosen_profile& next,
                                  std::FILE* out, std::vector<std::string>& sources, std::size_t limit = 10);

/// What a comparison judges: a base, a new profile and the base's history.
struct compare_inputs {
  chosen_profile base, next;
  std::vector<profile> history;
  std::vector<std::string> history_sources;
};
/// Chooses them as `compare` does: `base_ref` and `new_ref` are files or stored runs
/// (resolve_profile); with neither, the newest run and the previous comparable one; with only
/// `base_ref`, the newest run against it; with only `new_ref`, it against its previous comparable
/// run. `history_refs` are taken as given; without them (and without `no_history`) the base's
/// history comes from the store (base_history). `store` may be nullptr (none there, or --db none):
/// then both must be files, and `db` names where a store was looked for.
compare_inputs choose_compare_inputs(run_store* store, const std::string& db, const std::string& base_ref,
                                     const std::string& new_ref, const std::vector<std::string>& history_refs,
                                     bool no_history, std::FILE* out);

/// The trends of `shown`'s records over the store's runs on its GPU model with its options (at
/// least 3 runs each), with their change points; `shown` and `base` marked where they are stored.
std::vector<record_trend> report_trends(run_store& store, const chosen_profile& shown, const chosen_profile* base);

/// `text` cut to `columns` (code points) with "…" when longer.
std::string fit_line(const std::string& text, std::size_t columns = 80);

}  // namespace gpubench::app
