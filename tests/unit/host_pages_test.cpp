/// Unit tests for gpubench/host_pages.hpp: the tunable a measuring worker starts with, that the
/// link hands it to the worker, and that under it a freed large buffer's pages do not come back.
#include "gpubench/host_pages.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpubench/worker_link.hpp"
#include "process/spawn.hpp"
#include "test_support.hpp"

namespace {

TEST(host_pages, the_tunable_joins_the_users_and_leaves_a_threshold_the_user_set) {
  EXPECT_EQ(gpubench::tunables_for_fresh_host_pages(""), "glibc.malloc.mmap_threshold=65536");
  EXPECT_EQ(gpubench::tunables_for_fresh_host_pages("glibc.malloc.arena_max=2"),
            "glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=65536");
  EXPECT_EQ(gpubench::tunables_for_fresh_host_pages("glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=4096"),
            "glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=4096");
  // A longer name that only starts alike is another tunable.
  EXPECT_EQ(gpubench::tunables_for_fresh_host_pages("glibc.malloc.mmap_threshold_x=1"),
            "glibc.malloc.mmap_threshold_x=1:glibc.malloc.mmap_threshold=65536");
}

TEST(host_pages, a_worker_gets_the_environment_it_is_started_with) {
  temp_dir dir("gpubench_host_pages_link");
  const auto worker = dir.path / "worker";
  std::ofstream(worker)
      << "#!/bin/sh\ncat >/dev/null\necho \"{\\\"ok\\\": true, \\\"tunables\\\": \\\"$GLIBC_TUNABLES\\\", "
         "\\\"path_kept\\\": \\\"${PATH:+yes}\\\"}\"\n";
  std::filesystem::permissions(worker, std::filesystem::perms::owner_all);
  gpubench::process_link link(worker, {}, "test worker", std::chrono::seconds(30),
                              {"GLIBC_TUNABLES=glibc.malloc.mmap_threshold=65536"});
  link.end_input();
  const auto reply = link.receive();
  EXPECT_EQ(reply.value("tunables", ""), "glibc.malloc.mmap_threshold=65536") << reply.dump();
  EXPECT_EQ(reply.value("path_kept", ""), "yes") << reply.dump();  // the rest of the environment stays
}

// Volatile accesses, so that the compiler keeps every allocation, write and read below.
void write_pattern(void* p, std::size_t n, unsigned char value) {
  auto* b = static_cast<volatile unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) b[i] = value;
}

std::size_t count_of(const void* p, std::size_t from, std::size_t to, unsigned char value) {
  const auto* b = static_cast<const volatile unsigned char*>(p);
  std::size_t n = 0;
  for (std::size_t i = from; i < to; ++i) n += b[i] == value;
  return n;
}

// Runs in the child that the next test starts, under the tunable; skips anywhere else.
TEST(host_pages_child, a_freed_buffer_of_a_mebibyte_is_not_handed_back_on_its_pages) {
  if (std::getenv("GPUBENCH_HOST_PAGES_CHILD") == nullptr)
    GTEST_SKIP() << "runs as a child of host_pages.under_the_tunable_a_state_gets_other_pages_than_the_last_freed";
  // Without the tunable, freeing this 4 MiB mapping raises glibc's threshold, the 3 MiB buffer
  // then grows the heap, and the 1 MiB buffers below come from it, the second on the first's pages.
  constexpr std::size_t n = std::size_t{1} << 20;
  void* first = std::malloc(4 * n);
  ASSERT_NE(first, nullptr);
  write_pattern(first, 4 * n, 0x11);
  std::free(first);
  void* grown = std::malloc(3 * n);
  ASSERT_NE(grown, nullptr);
  write_pattern(grown, 3 * n, 0x22);
  std::free(grown);

  void* state = std::malloc(n);
  ASSERT_NE(state, nullptr);
  write_pattern(state, n, 0xA5);
  std::free(state);
  void* next = std::malloc(n);
  ASSERT_NE(next, nullptr);
  // A buffer on fresh pages reads as zeros; one on the freed buffer's pages keeps its bytes (all
  // but the allocator's few bytes of bookkeeping at the start, left out here).
  const std::size_t kept = count_of(next, 4096, n, 0xA5);
  std::free(next);
  EXPECT_EQ(kept, 0u);
}

TEST(host_pages, under_the_tunable_a_state_gets_other_pages_than_the_last_freed) {
  temp_dir dir("gpubench_host_pages_child");
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  ASSERT_FALSE(ec) << ec.message();
  const char* before = std::getenv("GLIBC_TUNABLES");
  const std::string saved = before != nullptr ? before : "";
  const std::string tunables =
      gpubench::fresh_host_pages_environment().front().substr(std::string("GLIBC_TUNABLES=").size());
  ::setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
  ::setenv("GPUBENCH_HOST_PAGES_CHILD", "1", 1);
  const auto log = dir.path / "child.log";
  const auto r = gpubench::detail::run_program(self, {"--gtest_filter=host_pages_child.*"}, log);
  ::unsetenv("GPUBENCH_HOST_PAGES_CHILD");
  if (before != nullptr) ::setenv("GLIBC_TUNABLES", saved.c_str(), 1);
  else ::unsetenv("GLIBC_TUNABLES");
  std::stringstream out;
  out << std::ifstream(log).rdbuf();
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 0) << out.str();
  EXPECT_NE(out.str().find("[  PASSED  ] 1 test"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("SKIPPED"), std::string::npos) << out.str();
}

}  // namespace
