// The fleet store on a shared folder (gpubench/fleet_store.hpp): one file per task, named by its
// job and task number, so that the tasks of a job, on any number of nodes, never write the same
// file, and each file is replaced atomically (write_text_file), so a reader never sees half of one.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <system_error>

#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "gpubench/fleet_store.hpp"
#include "gpubench/text_file.hpp"

namespace gpubench {

namespace fs = std::filesystem;

namespace {

// A profile holds every sample; a long run of every chapter is tens of MB. Anything past this is
// not a task's profile, and reading it whole could exhaust the reader's memory.
constexpr std::uintmax_t kMaxEntryBytes = 512ull << 20;

std::string task_name(int task) { return fmt::format("task-{:05d}", task); }

// The text of a regular file that is not a symbolic link, at most kMaxEntryBytes; throws
// usage_error with the reason otherwise.
std::string read_entry(const fs::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0)
    throw usage_error(fmt::format("{}: cannot stat: {}", path.string(), std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    throw usage_error(fmt::format("{}: not a regular file (a link, a folder or a device)", path.string()));
  if (std::uintmax_t(st.st_size) > kMaxEntryBytes)
    throw usage_error(fmt::format("{}: {} bytes, more than the {} MiB a fleet entry may have", path.string(),
                                  st.st_size, kMaxEntryBytes >> 20));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw usage_error(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  std::string text;
  text.reserve(std::size_t(st.st_size));
  text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad() || text.size() > kMaxEntryBytes)
    throw usage_error(fmt::format("{}: cannot read it whole", path.string()));
  return text;
}

nlohmann::ordered_json parse_entry(const fs::path& path) {
  const std::string text = read_entry(path);
  try {
    return nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw usage_error(fmt::format("{}: not valid JSON ({})", path.string(), e.what()));
  }
}

// "task-00012.json" -> 12, "task-00012.failed.json" -> 12 (failed = true); nullopt for any other name.
std::optional<int> task_of(const std::string& name, bool& failed) {
  constexpr std::string_view prefix = "task-";
  if (name.rfind(prefix, 0) != 0) return std::nullopt;
  std::size_t i = prefix.size();
  long long n = 0;
  const std::size_t digits_from = i;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9' && i - digits_from < 8) n = n * 10 + (name[i++] - '0');
  if (i == digits_from) return std::nullopt;
  const std::string rest = name.substr(i);
  if (rest == ".json") failed = false;
  else if (rest == ".failed.json") failed = true;
  else return std::nullopt;
  return static_cast<int>(n);
}

}  // namespace

folder_store::folder_store(fs::path dir, bool create) : dir_(std::move(dir)) {
  std::error_code ec;
  if (create && !fs::exists(dir_, ec)) {
    if (!fs::create_directory(dir_, ec) && ec)
      throw usage_error(fmt::format("--store {}: cannot create the folder: {}; create it on a file system every node "
                                    "mounts",
                                    dir_.string(), ec.message()));
  }
  if (!fs::is_directory(dir_, ec))
    throw usage_error(fmt::format("--store {}: no such folder; give a folder on a file system every node mounts "
                                  "(docs/fleet.md)",
                                  dir_.string()));
  if (create && ::access(dir_.c_str(), W_OK | X_OK) != 0)
    throw usage_error(fmt::format("--store {}: not writable by this user", dir_.string()));
}

std::string folder_store::describe() const { return "folder " + dir_.string(); }

fs::path folder_store::job_dir(const std::string& job_id) const {
  if (!valid_job_id(job_id))
    throw usage_error(fmt::format("job id '{}': expected [A-Za-z0-9_.-], at most 64 bytes", job_id));
  return dir_ / ("job-" + job_id);
}

void folder_store::put_manifest(const fleet_manifest& m) {
  const fs::path d = job_dir(m.job_id);
  std::error_code ec;
  fs::create_directories(d, ec);  // every task may race to create it: an existing folder is fine
  write_text_file((d / "manifest.json").string(), to_json(m).dump(2) + "\n");
}

void folder_store::put_result(const fleet_task_tags& tags, const profile& p) {
  const fs::path d = job_dir(tags.job_id);
  std::error_code ec;
  fs::create_directories(d, ec);
  write_text_file((d / (task_name(tags.task) + ".json")).string(), fleet_result_to_json(tags, p).dump() + "\n");
  fs::remove(d / (task_name(tags.task) + ".failed.json"), ec);  // a requeued task that now succeeded
}

void folder_store::put_failure(const fleet_failure& f) {
  const fs::path d = job_dir(f.tags.job_id);
  std::error_code ec;
  fs::create_directories(d, ec);
  write_text_file((d / (task_name(f.tags.task) + ".failed.json")).string(), to_json(f).dump(2) + "\n");
}

std::vector<std::string> folder_store::jobs() const {
  std::vector<std::pair<fs::file_time_type, std::string>> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("job-", 0) != 0 || !e.is_directory(ec) || e.is_symlink(ec)) continue;
    const std::string id = name.substr(4);
    if (!valid_job_id(id)) continue;
    found.emplace_back(fs::last_write_time(e.path(), ec), id);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

fleet_job folder_store::load(const std::string& job_id) const {
  const fs::path d = job_dir(job_id);
  std::error_code ec;
  if (!fs::is_directory(d, ec) || fs::is_symlink(d, ec))
    throw usage_error(fmt::format("{}: no job {} stored here ({} holds: {})", dir_.string(), job_id, dir_.string(),
                                  jobs().empty() ? std::string("no job") : fmt::format("{}", fmt::join(jobs(), ", "))));
  fleet_job job;
  job.job_id = job_id;
  std::map<int, fs::path> results, failures;
  for (const auto& e : fs::directory_iterator(d, ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.') continue;  // write_text_file's temporary files, being written
    bool failed = false;
    if (name == "manifest.json") {
      try {
        job.manifest = fleet_manifest_from_json(parse_entry(e.path()), e.path().string());
        if (job.manifest->job_id != job_id) {
          job.unreadable.push_back(
              fmt::format("{}: names job {}, not {}", e.path().string(), job.manifest->job_id, job_id));
          job.manifest.reset();
        }
      } catch (const error& x) {
        job.unreadable.push_back(x.what());
      }
    } else if (const auto t = task_of(name, failed)) {
      (failed ? failures : results)[*t] = e.path();
    } else if (name.rfind("slurm-", 0) != 0) {
      job.unreadable.push_back(
          fmt::format("{}: not a fleet entry (task-NNNNN.json, task-NNNNN.failed.json, manifest.json)",
                      e.path().string()));
    }
  }
  for (const auto& [task, path] : results) {
    try {
      fleet_result r = fleet_result_from_json(parse_entry(path), path.string());
      if (r.tags.job_id != job_id || r.tags.task != task)
        throw usage_error(fmt::format("{}: holds job {} task {}; its name says job {} task {}", path.string(),
                                      r.tags.job_id, r.tags.task, job_id, task));
      job.results.push_back(std::move(r));
      failures.erase(task);  // a result wins over an older failure of the same task
    } catch (const error& x) {
      job.unreadable.push_back(x.what());
    }
  }
  for (const auto& [task, path] : failures) {
    try {
      fleet_failure f = fleet_failure_from_json(parse_entry(path), path.string());
      if (f.tags.job_id != job_id || f.tags.task != task)
        throw usage_error(fmt::format("{}: holds job {} task {}; its name says job {} task {}", path.string(),
                                      f.tags.job_id, f.tags.task, job_id, task));
      job.failures.push_back(std::move(f));
    } catch (const error& x) {
      job.unreadable.push_back(x.what());
    }
  }
  return job;
}

std::unique_ptr<fleet_store> open_fleet_store(const std::string& location, bool create) {
  if (location.find("://") != std::string::npos)
    throw usage_error(fmt::format("--store {}: this build stores fleets in a shared folder only; give a folder path "
                                  "every node mounts",
                                  location));
  return std::make_unique<folder_store>(location, create);
}

}  // namespace gpubench
