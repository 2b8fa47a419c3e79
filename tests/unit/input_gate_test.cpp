/// Unit tests for the gate every reader goes through: gpubench/input_file.hpp (regular files of
/// bounded size, nothing that blocks), gpubench/strict_json.hpp (repeated keys, depth, range,
/// memory) and gpubench/output_paths.hpp (no output over an input or another output).
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "gpubench/input_file.hpp"
#include "gpubench/output_paths.hpp"
#include "gpubench/strict_json.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpubench::named_path;
using gpubench::parse_strict_json;
using gpubench::read_input_file;

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// ------------------------------------------------------------------ input_file

TEST(input_file, reads_a_regular_file_whole) {
  temp_dir dir;
  std::ofstream(dir.path / "p.json", std::ios::binary) << std::string(100'000, 'x');
  EXPECT_EQ(read_input_file(dir.path / "p.json", "profile").size(), 100'000u);
}

TEST(input_file, refuses_what_is_not_a_regular_file_without_blocking) {
  temp_dir dir;
  EXPECT_TRUE(has(usage_message([&] { read_input_file(dir.path / "none.json", "profile"); }), "no such file"));
  EXPECT_TRUE(has(usage_message([&] { read_input_file(dir.path, "profile"); }), "is a directory"));
  EXPECT_TRUE(has(usage_message([&] { read_input_file("/dev/zero", "profile"); }), "is a character device"));
  const fs::path fifo = dir.path / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(
      has(usage_message([&] { read_input_file(fifo, "profile"); }), "is a named pipe (FIFO), not a profile file"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  // A socket (opening one fails; stat tells it apart first).
  const fs::path sock = dir.path / "s";
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_TRUE(has(usage_message([&] { read_input_file(sock, "profile"); }), "is a socket"));
  close(fd);
  // A symbolic link to a device is the device.
  fs::create_symlink("/dev/zero", dir.path / "link.json");
  EXPECT_TRUE(has(usage_message([&] { read_input_file(dir.path / "link.json", "profile"); }), "character device"));
}

TEST(input_file, refuses_a_file_above_the_limit_before_reading_it) {
  temp_dir dir;
  const fs::path big = dir.path / "big.json";
  std::ofstream(big, std::ios::binary) << std::string(2000, 'x');
  const std::string m = usage_message([&] { read_input_file(big, "profile", 1000); });
  EXPECT_TRUE(has(m, "above the")) << m;
  EXPECT_TRUE(has(m, "GPUBENCH_MAX_INPUT_MIB")) << m;
  EXPECT_EQ(read_input_file(big, "profile", 2000).size(), 2000u);  // at the limit: read
  // /proc files say they are empty and are not: the limit holds while reading too.
  EXPECT_TRUE(has(usage_message([&] { read_input_file("/proc/self/maps", "profile", 10); }), "above the"));
}

TEST(input_file, the_limit_comes_from_the_environment) {
  EXPECT_EQ(gpubench::input_limit_bytes(), gpubench::kDefaultInputLimitBytes);
  setenv("GPUBENCH_MAX_INPUT_MIB", "3", 1);
  EXPECT_EQ(gpubench::input_limit_bytes(), 3u << 20);
  for (const char* bad : {"0", "-1", "1.5", "abc", "99999999999"}) {
    setenv("GPUBENCH_MAX_INPUT_MIB", bad, 1);
    EXPECT_TRUE(has(usage_message([] { (void)gpubench::input_limit_bytes(); }), "whole number of MiB")) << bad;
  }
  unsetenv("GPUBENCH_MAX_INPUT_MIB");
}

// ------------------------------------------------------------------ strict_json

TEST(strict_json, parses_what_nlohmann_parses_in_the_same_order) {
  const std::string text = R"({"b": 1, "a": [1, 2.5, -3, "x", null, true, {"z": {}}], "c": {"y": [], "x": 1e-300}})";
  const auto j = parse_strict_json(text, "t");
  EXPECT_EQ(j, nlohmann::ordered_json::parse(text));
  EXPECT_EQ(j.begin().key(), "b");  // file order kept
  EXPECT_EQ(parse_strict_json("42", "t"), 42);
}

TEST(strict_json, a_key_given_twice_is_refused_with_its_path) {
  const std::string m =
      usage_message([] { (void)parse_strict_json(R"({"records": [{"a": 1}, {"s": 1, "b": 2, "s": 3}]})", "p.json"); });
  EXPECT_TRUE(has(m, "p.json: records[1]: the key \"s\" appears twice")) << m;
  EXPECT_TRUE(
      has(usage_message([] { (void)parse_strict_json(R"({"x": 1, "x": 1})", "t"); }), "top level: the key \"x\""));
  // The same key in different objects is fine.
  EXPECT_NO_THROW((void)parse_strict_json(R"({"x": {"x": 1}, "y": [{"x": 1}, {"x": 2}]})", "t"));
}

TEST(strict_json, nesting_is_bounded) {
  EXPECT_NO_THROW((void)parse_strict_json(std::string(64, '[') + std::string(64, ']'), "t"));
  const std::string m =
      usage_message([] { (void)parse_strict_json(std::string(65, '[') + std::string(65, ']'), "t"); });
  EXPECT_TRUE(has(m, "nests deeper than 64 levels")) << m;
  EXPECT_TRUE(has(usage_message([] { (void)parse_strict_json(std::string(10'000'000, '['), "t"); }), "nests deeper"));
}

TEST(strict_json, numbers_beyond_a_double_are_refused) {
  const std::string m = usage_message([] { (void)parse_strict_json("{\n \"a\": [1, 1e999]}", "t"); });
  EXPECT_TRUE(has(m, "line 2")) << m;
  EXPECT_TRUE(has(m, "out of range: '1e999'")) << m;
  EXPECT_TRUE(has(usage_message([] { (void)parse_strict_json("-1e400", "t"); }), "out of range"));
  EXPECT_EQ(parse_strict_json("1e-400", "t"), 0.0);  // underflow is a zero, which the reader judges
}

TEST(strict_json, syntax_errors_name_the_line_and_a_cut_file) {
  EXPECT_TRUE(has(usage_message([] { (void)parse_strict_json("{\"a\":\n x}", "t"); }), "t: not valid JSON at line 2"));
  EXPECT_TRUE(has(usage_message([] { (void)parse_strict_json("{\"a\": [1, 2", "t"); }), "truncated"));
  EXPECT_TRUE(has(usage_message([] { (void)parse_strict_json("{} {}", "t"); }), "not valid JSON"));
}

TEST(strict_json, memory_is_bounded_and_objects_are_linear) {
  std::string arrays = "[";
  for (int i = 0; i < 100'000; ++i) arrays += "[],";
  arrays += "[]]";
  EXPECT_TRUE(has(usage_message([&] { (void)parse_strict_json(arrays, "t", {.max_memory_bytes = 1 << 20}); }),
                  "holds more values than its size accounts for"));
  EXPECT_NO_THROW((void)parse_strict_json(arrays, "t"));  // the default budget: at least 64 MiB
  // A million keys in one object: nlohmann's ordered_json would search all earlier keys for each.
  std::string keys = "{";
  for (int i = 0; i < 1'000'000; ++i) keys += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  keys.back() = '}';
  const auto start = std::chrono::steady_clock::now();
  const auto j = parse_strict_json(keys, "t");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(j.size(), 1'000'000u);
  EXPECT_EQ(j["k999999"], 999'999);
}

// ------------------------------------------------------------------ output_paths

TEST(output_paths, an_output_over_an_input_is_refused_whatever_its_spelling) {
  temp_dir dir;
  const fs::path a = dir.path / "a.json";
  std::ofstream(a) << "{}";
  fs::create_directory(dir.path / "d");
  fs::create_hard_link(a, dir.path / "hard.json");
  fs::create_symlink(a, dir.path / "soft.json");
  for (const fs::path& same : {a, dir.path / "d" / ".." / "a.json", dir.path / "hard.json", dir.path / "soft.json"}) {
    const std::string m = usage_message([&] {
      gpubench::check_outputs_distinct({{"the base profile", a.string()}}, {{"--json", same.string()}});
    });
    EXPECT_TRUE(has(m, "--json '" + same.string() + "' is the same file as the base profile")) << m;
  }
  EXPECT_NO_THROW(gpubench::check_outputs_distinct({{"the base profile", a.string()}},
                                                   {{"--json", (dir.path / "b.json").string()}}));
  EXPECT_NO_THROW(
      gpubench::check_outputs_distinct({{"the base profile", a.string()}}, {{"--json", "-"}, {"--junit", ""}}));
}

TEST(output_paths, two_outputs_of_one_file_are_refused) {
  temp_dir dir;
  const std::string x = (dir.path / "x").string(), also_x = (dir.path / "d" / ".." / "x").string();
  fs::create_directory(dir.path / "d");
  const std::string m = usage_message([&] {
    gpubench::check_outputs_distinct({}, {{"--junit", x}, {"--markdown", also_x}});
  });
  EXPECT_TRUE(has(m, "--junit '" + x + "' and --markdown '" + also_x + "' are the same file")) << m;
  EXPECT_FALSE(fs::exists(x));
  EXPECT_NO_THROW(gpubench::check_outputs_distinct({}, {{"--junit", "-"}, {"--markdown", "-"}}));  // stdout is no file
}

}  // namespace
