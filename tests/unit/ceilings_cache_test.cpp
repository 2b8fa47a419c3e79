// The per-GPU ceilings cache: where it lives, a store/load round trip, and every way a cache file
// can be unusable (missing, corrupt, another GPU's) reads as "nothing cached", never a throw.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpubench/ceilings_cache.hpp"
#include "gpubench/profile.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

/// Sets (or unsets, with nullopt) an environment variable for the test's lifetime.
class scoped_env {
 public:
  scoped_env(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) saved_ = std::string(old);
    if (value) setenv(name, value->c_str(), 1);
    else unsetenv(name);
  }
  ~scoped_env() {
    if (saved_) setenv(name_, saved_->c_str(), 1);
    else unsetenv(name_);
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

/// A fresh temporary directory used as GPUBENCH_CACHE_DIR, removed afterwards.
class ceilings_cache : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "gpubench_cache_test_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    dir_ = root_ / "nested" / "cache";  // store must create missing directories
    env_.emplace("GPUBENCH_CACHE_DIR", dir_.string());
  }
  void TearDown() override {
    env_.reset();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  static device_info gpu(const std::string& uuid = "GPU-12345678-abcd-ef01-2345-6789abcdef01") {
    device_info d;
    d.name = "NVIDIA H100 80GB HBM3";
    d.uuid = uuid;
    return d;
  }
  static ceilings measured() {
    ceilings c;
    c.source = "measured";
    c.dram_bytes_per_s = 3.0e12;
    c.pcie_bytes_per_s = 5.3e10;
    c.pcie_duplex_bytes_per_s = 4.0e10;
    c.fp32_flops_per_s = 6.5e13;
    c.fp64_flops_per_s = 3.3e13;
    c.tf32_flops_per_s = 4.0e14;
    c.fp16_flops_per_s = 7.5e14;
    c.bf16_flops_per_s = 7.6e14;
    c.fp8_flops_per_s = 1.5e15;
    c.measured_at = "2026-11-20T10:00:00Z";
    c.table.push_back({"dram", "B/s", 3.0e12, 3.35e12, 2.95e12, "float4 copy kernel"});
    c.table.push_back({"launch_graph", "s", 1.1e-6, 0, 0, "graph replay"});
    return c;
  }
  fs::path file_for(const device_info& d) const { return dir_ / ("ceilings-" + d.uuid + ".json"); }
  static void write(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << text;
  }

  fs::path root_, dir_;
  std::optional<scoped_env> env_;
};

TEST_F(ceilings_cache, dir_follows_the_environment) {
  EXPECT_EQ(ceilings_cache_dir(), dir_);
  scoped_env no_override("GPUBENCH_CACHE_DIR", std::nullopt);
  {
    scoped_env xdg("XDG_CACHE_HOME", "/tmp/xdg");
    EXPECT_EQ(ceilings_cache_dir(), fs::path("/tmp/xdg/gpubench"));
  }
  scoped_env no_xdg("XDG_CACHE_HOME", std::nullopt);
  scoped_env home("HOME", "/home/someone");
  EXPECT_EQ(ceilings_cache_dir(), fs::path("/home/someone/.cache/gpubench"));
}

TEST_F(ceilings_cache, store_then_load_round_trips) {
  const device_info d = gpu();
  const ceilings c = measured();
  store_cached_ceilings(d, c);
  ASSERT_TRUE(fs::exists(file_for(d)));

  const auto j = nlohmann::ordered_json::parse(std::ifstream(file_for(d)));
  EXPECT_EQ(j["schema"], "gpubench-ceilings");
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["device"]["uuid"], d.uuid);
  EXPECT_EQ(j["device"]["name"], d.name);

  std::string problem = "stale";
  const auto back = load_cached_ceilings(d, &problem);
  ASSERT_TRUE(back.has_value()) << problem;
  EXPECT_TRUE(problem.empty());
  EXPECT_EQ(back->source, "measured");
  EXPECT_DOUBLE_EQ(back->dram_bytes_per_s, c.dram_bytes_per_s);
  EXPECT_DOUBLE_EQ(back->pcie_bytes_per_s, c.pcie_bytes_per_s);
  EXPECT_DOUBLE_EQ(back->pcie_duplex_bytes_per_s, c.pcie_duplex_bytes_per_s);
  EXPECT_DOUBLE_EQ(back->fp32_flops_per_s, c.fp32_flops_per_s);
  EXPECT_DOUBLE_EQ(back->fp64_flops_per_s, c.fp64_flops_per_s);
  EXPECT_DOUBLE_EQ(back->tf32_flops_per_s, c.tf32_flops_per_s);
  EXPECT_DOUBLE_EQ(back->fp16_flops_per_s, c.fp16_flops_per_s);
  EXPECT_DOUBLE_EQ(back->bf16_flops_per_s, c.bf16_flops_per_s);
  EXPECT_DOUBLE_EQ(back->fp8_flops_per_s, c.fp8_flops_per_s);
  EXPECT_EQ(back->measured_at, c.measured_at);
  ASSERT_EQ(back->table.size(), c.table.size());
  for (std::size_t i = 0; i < c.table.size(); ++i) {
    EXPECT_EQ(back->table[i].name, c.table[i].name);
    EXPECT_EQ(back->table[i].unit, c.table[i].unit);
    EXPECT_DOUBLE_EQ(back->table[i].value, c.table[i].value);
    EXPECT_DOUBLE_EQ(back->table[i].theoretical, c.table[i].theoretical);
    EXPECT_DOUBLE_EQ(back->table[i].reference, c.table[i].reference);
    EXPECT_EQ(back->table[i].method, c.table[i].method);
  }

  // Storing again replaces the file (atomically) and leaves no temporary behind.
  ceilings again = c;
  again.dram_bytes_per_s = 3.1e12;
  store_cached_ceilings(d, again);
  EXPECT_DOUBLE_EQ(load_cached_ceilings(d)->dram_bytes_per_s, 3.1e12);
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1);
}

TEST_F(ceilings_cache, missing_file_is_nothing_cached) {
  std::string problem = "stale";
  EXPECT_FALSE(load_cached_ceilings(gpu(), &problem).has_value());
  EXPECT_TRUE(problem.empty()) << "a cache not yet written is no problem: " << problem;
  EXPECT_FALSE(load_cached_ceilings(gpu()).has_value());  // problem is optional
}

TEST_F(ceilings_cache, another_gpus_cache_is_not_used) {
  store_cached_ceilings(gpu("GPU-aaaaaaaa"), measured());
  EXPECT_FALSE(load_cached_ceilings(gpu("GPU-bbbbbbbb")).has_value());
}

TEST_F(ceilings_cache, corrupt_file_is_ignored_with_a_problem) {
  const device_info d = gpu();
  fs::create_directories(dir_);
  write(file_for(d), "{\"schema\": \"gpubench-ceilings\", \"schema_ver");
  std::string problem;
  EXPECT_FALSE(load_cached_ceilings(d, &problem).has_value());
  EXPECT_NE(problem.find("not valid JSON"), std::string::npos) << problem;
  EXPECT_NE(problem.find(file_for(d).string()), std::string::npos) << problem;

  // Valid JSON, but the ceilings inside are damaged (a negative bandwidth, a missing field).
  store_cached_ceilings(d, measured());
  auto j = nlohmann::ordered_json::parse(std::ifstream(file_for(d)));
  j["ceilings"]["dram_bytes_per_s"] = -1;
  write(file_for(d), j.dump());
  problem.clear();
  EXPECT_FALSE(load_cached_ceilings(d, &problem).has_value());
  EXPECT_NE(problem.find("damaged"), std::string::npos) << problem;
  j["ceilings"].erase("dram_bytes_per_s");
  write(file_for(d), j.dump());
  problem.clear();
  EXPECT_FALSE(load_cached_ceilings(d, &problem).has_value());
  EXPECT_FALSE(problem.empty());

  // Not ours at all: another schema, or an unknown version.
  write(file_for(d), R"({"schema": "gpubench-profile", "schema_version": 1})");
  problem.clear();
  EXPECT_FALSE(load_cached_ceilings(d, &problem).has_value());
  EXPECT_NE(problem.find("schema"), std::string::npos) << problem;
  write(file_for(d), R"({"schema": "gpubench-ceilings", "schema_version": 99, "device": {}, "ceilings": {}})");
  problem.clear();
  EXPECT_FALSE(load_cached_ceilings(d, &problem).has_value());
  EXPECT_NE(problem.find("schema_version"), std::string::npos) << problem;
  write(file_for(d), "[1, 2, 3]");
  problem.clear();
  EXPECT_FALSE(load_cached_ceilings(d, &problem).has_value());
  EXPECT_FALSE(problem.empty());
}

TEST_F(ceilings_cache, wrong_uuid_inside_is_ignored_with_a_problem) {
  const device_info d = gpu();
  store_cached_ceilings(d, measured());
  auto j = nlohmann::ordered_json::parse(std::ifstream(file_for(d)));
  j["device"]["uuid"] = "GPU-someone-else";
  write(file_for(d), j.dump());
  std::string problem;
  EXPECT_FALSE(load_cached_ceilings(d, &problem).has_value());
  EXPECT_NE(problem.find("GPU-someone-else"), std::string::npos) << problem;
}

TEST_F(ceilings_cache, no_uuid_means_no_cache) {
  std::string problem;
  EXPECT_FALSE(load_cached_ceilings(gpu(""), &problem).has_value());
  EXPECT_NE(problem.find("UUID"), std::string::npos) << problem;
  EXPECT_THROW(store_cached_ceilings(gpu(""), measured()), std::runtime_error);
}

TEST_F(ceilings_cache, odd_uuid_cannot_escape_the_cache_dir) {
  const device_info d = gpu("../../evil/x");
  store_cached_ceilings(d, measured());
  EXPECT_TRUE(fs::exists(dir_ / "ceilings-.._.._evil_x.json"));
  EXPECT_TRUE(load_cached_ceilings(d).has_value());
}

}  // namespace
}  // namespace gpubench
