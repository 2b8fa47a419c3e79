/// scripts/gpu.sh, the GPU machine's entry point, without a GPU: every step is checked before any
/// runs (usage errors exit 2 and write nothing), a step that needs build-gpu/ says to build first,
/// and the steps that drive gpubench do so as documented, against a stand-in gpubench that logs
/// its calls. Also: every shell script under scripts/ and examples/ci/ parses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

/// gpu.sh run from the source tree with OUT inside `d` and the given GB, stdout and stderr together.
shell_result gpu_sh(const temp_dir& d, const std::string& args, const std::string& gb = "/nonexistent/gpubench") {
  return run_shell(std::string("cd '") + GPUBENCH_SOURCE_DIR + "' && OUT='" + (d.path / "out").string() + "' GB='" +
                   gb + "' bash scripts/gpu.sh " + args + " 2>&1");
}

/// A stand-in gpubench: logs each call (arguments and NCCL_NVLS_ENABLE) to calls.log, writes `{}`
/// to --out, and exits `run_status` for `run`.
std::string write_stand_in(const temp_dir& d, int run_status = 0) {
  const fs::path gb = d.path / "gpubench";
  std::ofstream(gb) << "#!/bin/sh\n"
                    << "echo \"$* NVLS=${NCCL_NVLS_ENABLE:-unset}\" >> '" << (d.path / "calls.log").string() << "'\n"
                    << "[ \"$1\" = device ] && { echo 'GPU 0: NVIDIA H100 80GB HBM3'; exit 0; }\n"
                    << "[ \"$1\" = run ] || exit 0\n"
                    << "while [ $# -gt 0 ]; do [ \"$1\" = --out ] && echo '{}' > \"$2\"; shift; done\n"
                    << "exit " << run_status << "\n";
  EXPECT_EQ(run_shell("chmod +x '" + gb.string() + "'").status, 0);
  return gb.string();
}

std::string calls(const temp_dir& d) {
  std::ifstream in(d.path / "calls.log");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(GpuScript, EveryShellScriptParses) {
  const auto r = run_shell(std::string("cd '") + GPUBENCH_SOURCE_DIR +
                           "' && for f in scripts/*.sh scripts/analysis/*.sh examples/ci/*.sh; do"
                           " bash -n \"$f\" || echo \"FAILED $f\"; done 2>&1");
  EXPECT_EQ(r.status, 0);
  EXPECT_FALSE(has(r.output, "FAILED")) << r.output;
}

TEST(GpuScript, WithoutStepsPrintsTheStepsAndExits2) {
  temp_dir d("gpubench_gpu_sh");
  const auto r = gpu_sh(d, "");
  EXPECT_EQ(r.status, 2) << r.output;
  for (const char* step : {"build", "tests", "check", "reference NAME [RUNS]", "processes RUNS CHAPTER...", "sanitize",
                           "ceilings", "metricsN", "flush", "confirm", "quick", "tuning", "chN", "pack"})
    EXPECT_TRUE(has(r.output, std::string("  ") + step)) << step << "\n" << r.output;
  EXPECT_FALSE(fs::exists(d.path / "out"));
  const auto help = gpu_sh(d, "--help");
  EXPECT_EQ(help.status, 0) << help.output;
  std::istringstream lines(help.output);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 80u) << line;
}

TEST(GpuScript, BadStepsFailBeforeAnyStepRuns) {
  temp_dir d("gpubench_gpu_sh");
  const std::string gb = write_stand_in(d);
  for (const std::string args : {"quick bogus", "reference", "reference h100 0", "reference 'a b'", "processes",
                                 "processes 4", "processes x 1", "ch0", "metrics"}) {
    const auto r = gpu_sh(d, args, gb);
    EXPECT_EQ(r.status, 2) << args << ": " << r.output;
    EXPECT_TRUE(has(r.output, "usage: scripts/gpu.sh")) << args << ": " << r.output;
  }
  EXPECT_EQ(calls(d), "");  // quick never ran: the typo after it was found first
  EXPECT_FALSE(fs::exists(d.path / "out"));
}

TEST(GpuScript, StepsOtherThanBuildSayToBuildFirst) {
  temp_dir d("gpubench_gpu_sh");
  for (const char* step : {"tests", "check", "quick", "ch1", "processes 2 1"}) {
    const auto r = gpu_sh(d, step);
    EXPECT_EQ(r.status, 2) << step << ": " << r.output;
    EXPECT_TRUE(has(r.output, "/nonexistent/gpubench, which is missing")) << r.output;
    EXPECT_TRUE(has(r.output, "Run 'scripts/gpu.sh build' first")) << r.output;
  }
  EXPECT_FALSE(fs::exists(d.path / "out"));
}

TEST(GpuScript, ProcessesAlternateChaptersInsideEachRun) {
  temp_dir d("gpubench_gpu_sh");
  const auto r = gpu_sh(d, "processes 2 1 3 -- --rest 1 -- quick", write_stand_in(d));
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string runs = (d.path / "out" / "runs").string();
  const std::string expected = "run --chapter 1 --quiet --rest 1 --out " + runs + "/ch01-r1.json NVLS=0\n" +
                               "run --chapter 3 --quiet --rest 1 --out " + runs + "/ch03-r1.json NVLS=0\n" +
                               "run --chapter 1 --quiet --rest 1 --out " + runs + "/ch01-r2.json NVLS=0\n" +
                               "run --chapter 3 --quiet --rest 1 --out " + runs + "/ch03-r2.json NVLS=0\n";
  EXPECT_TRUE(calls(d).starts_with(expected)) << calls(d);
  EXPECT_TRUE(has(calls(d), "run --chapter 1 --quick --quiet --out")) << calls(d);  // the next step
  for (const char* f : {"ch01-r1.json", "ch01-r1.json.txt", "ch03-r2.json", "ch03-r2.json.txt"})
    EXPECT_TRUE(fs::exists(d.path / "out" / "runs" / f)) << f;
  EXPECT_TRUE(fs::exists(d.path / "out" / "processes.txt"));
}

TEST(GpuScript, ReferenceComparesTheLastRunWithTheOthersAsHistory) {
  temp_dir d("gpubench_gpu_sh");
  const auto r = gpu_sh(d, "reference h100 3", write_stand_in(d));
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string p = (d.path / "out" / "profiles").string();
  EXPECT_TRUE(has(calls(d), "run --chapter 1 --out " + p + "/h100-ch01.json NVLS=0")) << calls(d);
  EXPECT_TRUE(has(calls(d),
                  "compare " + p + "/h100-ch01.json " + p + "/h100-ch01-r3.json --history " + p + "/h100-ch01-r2.json"))
      << calls(d);
}

TEST(GpuScript, AFailedRunFailsTheScript) {
  temp_dir d("gpubench_gpu_sh");
  const auto r = gpu_sh(d, "processes 1 1 ch2", write_stand_in(d, 3));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, "ch1 run 1 rc=3")) << r.output;
  EXPECT_TRUE(has(calls(d), "run --chapter 2 --quiet")) << calls(d);  // later steps still run
}

}  // namespace
