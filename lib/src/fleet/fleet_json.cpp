// The fleet store's documents (gpubench/fleet_store.hpp): a task's tags with its profile, a failed
// task, a job's manifest. They come from a shared folder that many nodes write, so the reader
// treats them as untrusted: every field is checked for type, length and control characters, and a
// problem names the file and the field (as the profile reader does, docs/profile-schema.md).
#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "gpubench/fleet_store.hpp"
#include "text/untrusted_text.hpp"

namespace gpubench {

namespace {

constexpr const char* kTaskSchema = "gpubench-fleet-task";
constexpr const char* kFailureSchema = "gpubench-fleet-failure";
constexpr const char* kManifestSchema = "gpubench-fleet-manifest";
constexpr int kSchemaVersion = 1;
constexpr int kMaxTasks = 1 << 20;  // a million GPUs in one job is far past any cluster

using json = nlohmann::ordered_json;

[[noreturn]] void bad(const std::string& source, const std::string& path, const std::string& what) {
  throw usage_error(fmt::format("{}: {}: {}", source, path, what));
}

const json& field(const json& j, const char* key, const std::string& source, const std::string& path) {
  if (!j.is_object()) bad(source, path, "expected an object");
  const auto it = j.find(key);
  if (it == j.end()) bad(source, path + "." + key, "missing");
  return *it;
}

std::string text(const json& j, const char* key, const std::string& source, const std::string& path,
                 std::size_t max = detail::kMaxShortTextBytes) {
  const json& v = field(j, key, source, path);
  if (!v.is_string()) bad(source, path + "." + key, "expected a string");
  const auto s = v.get<std::string>();
  if (const std::string p = detail::text_problem(s, max); !p.empty()) bad(source, path + "." + key, p);
  return s;
}

int integer(const json& j, const char* key, const std::string& source, const std::string& path, int lo, int hi) {
  const json& v = field(j, key, source, path);
  if (!v.is_number_integer()) bad(source, path + "." + key, "expected an integer");
  const auto n = v.get<long long>();
  if (n < lo || n > hi) bad(source, path + "." + key, fmt::format("{} is outside {}..{}", n, lo, hi));
  return static_cast<int>(n);
}

void check_schema(const json& j, const char* schema, const std::string& source) {
  if (!j.is_object()) bad(source, "$", "expected a JSON object");
  if (text(j, "schema", source, "$") != schema)
    bad(source, "$.schema", fmt::format("expected \"{}\": not a gpubench fleet file of this kind", schema));
  const int v = integer(j, "schema_version", source, "$", 1, 1000000);
  if (v > kSchemaVersion)
    bad(source, "$.schema_version", fmt::format("{} is newer than this gpubench reads ({})", v, kSchemaVersion));
}

json tags_json(const fleet_task_tags& t) {
  return json{{"job_id", t.job_id},
              {"task", t.task},
              {"tasks", t.tasks},
              {"node", t.node},
              {"host", t.host},
              {"gpu_uuid", t.gpu_uuid},
              {"pci_bus_id", t.pci_bus_id},
              {"gpu_name", t.gpu_name},
              {"driver", t.driver},
              {"visible_gpus", t.visible_gpus},
              {"measured_by", t.measured_by},
              {"run_exit", t.run_exit},
              {"stored_at", t.stored_at}};
}

fleet_task_tags tags_from(const json& j, const std::string& source) {
  const std::string p = "$.tags";
  fleet_task_tags t;
  t.job_id = text(j, "job_id", source, p);
  if (!valid_job_id(t.job_id)) bad(source, p + ".job_id", "not a job id ([A-Za-z0-9_.-], at most 64 bytes)");
  t.task = integer(j, "task", source, p, 0, kMaxTasks);
  t.tasks = integer(j, "tasks", source, p, 0, kMaxTasks);
  t.node = text(j, "node", source, p);
  t.host = text(j, "host", source, p);
  t.gpu_uuid = text(j, "gpu_uuid", source, p);
  t.pci_bus_id = text(j, "pci_bus_id", source, p);
  t.gpu_name = text(j, "gpu_name", source, p);
  t.driver = text(j, "driver", source, p);
  t.visible_gpus = text(j, "visible_gpus", source, p);
  t.measured_by = text(j, "measured_by", source, p, detail::kMaxLongTextBytes);
  t.run_exit = integer(j, "run_exit", source, p, -1, 255);
  t.stored_at = text(j, "stored_at", source, p);
  return t;
}

}  // namespace

bool valid_job_id(const std::string& id) {
  if (id.empty() || id.size() > 64 || id == "." || id == "..") return false;
  for (const char c : id)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
          c == '-'))
      return false;
  return true;
}

json fleet_result_to_json(const fleet_task_tags& tags, const profile& p) {
  return json{{"schema", kTaskSchema},
              {"schema_version", kSchemaVersion},
              {"tags", tags_json(tags)},
              {"profile", to_json(p)}};
}

fleet_result fleet_result_from_json(const json& j, const std::string& source) {
  check_schema(j, kTaskSchema, source);
  fleet_result r;
  r.tags = tags_from(field(j, "tags", source, "$"), source);
  r.prof = profile_from_json(field(j, "profile", source, "$"), source + " ($.profile)");
  r.source = source;
  return r;
}

json to_json(const fleet_failure& f) {
  return json{{"schema", kFailureSchema},
              {"schema_version", kSchemaVersion},
              {"tags", tags_json(f.tags)},
              {"reason", f.reason}};
}

fleet_failure fleet_failure_from_json(const json& j, const std::string& source) {
  check_schema(j, kFailureSchema, source);
  fleet_failure f;
  f.tags = tags_from(field(j, "tags", source, "$"), source);
  f.reason = text(j, "reason", source, "$", detail::kMaxLongTextBytes);
  return f;
}

json to_json(const fleet_manifest& m) {
  return json{{"schema", kManifestSchema}, {"schema_version", kSchemaVersion},
              {"job_id", m.job_id},        {"tasks", m.tasks},
              {"nodes", m.nodes},          {"tasks_per_node", m.tasks_per_node},
              {"started_at", m.started_at}};
}

fleet_manifest fleet_manifest_from_json(const json& j, const std::string& source) {
  check_schema(j, kManifestSchema, source);
  fleet_manifest m;
  m.job_id = text(j, "job_id", source, "$");
  if (!valid_job_id(m.job_id)) bad(source, "$.job_id", "not a job id ([A-Za-z0-9_.-], at most 64 bytes)");
  m.tasks = integer(j, "tasks", source, "$", 0, kMaxTasks);
  const json& nodes = field(j, "nodes", source, "$");
  if (!nodes.is_array() || nodes.size() > std::size_t(kMaxTasks)) bad(source, "$.nodes", "expected an array of names");
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].is_string()) bad(source, fmt::format("$.nodes[{}]", i), "expected a string");
    const auto s = nodes[i].get<std::string>();
    if (const auto p = detail::text_problem(s, detail::kMaxShortTextBytes); !p.empty())
      bad(source, fmt::format("$.nodes[{}]", i), p);
    m.nodes.push_back(s);
  }
  const json& per = field(j, "tasks_per_node", source, "$");
  if (!per.is_array() || (!per.empty() && per.size() != m.nodes.size()))
    bad(source, "$.tasks_per_node", "expected an array with one count per node (or an empty one)");
  long long sum = 0;
  for (std::size_t i = 0; i < per.size(); ++i) {
    if (!per[i].is_number_integer() || per[i].get<long long>() < 0 || per[i].get<long long>() > kMaxTasks)
      bad(source, fmt::format("$.tasks_per_node[{}]", i), "expected a count of tasks");
    sum += per[i].get<long long>();
    m.tasks_per_node.push_back(per[i].get<int>());
  }
  if (!per.empty() && sum != m.tasks)
    bad(source, "$.tasks_per_node", fmt::format("adds up to {}, but the job runs {} tasks", sum, m.tasks));
  m.started_at = text(j, "started_at", source, "$");
  return m;
}

}  // namespace gpubench
