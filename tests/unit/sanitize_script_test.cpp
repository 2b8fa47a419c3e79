/// scripts/sanitize.sh without a GPU: it must refuse clearly (exit 1, "needs a GPU") rather than
/// report a wall of failed sanitizer runs, and reject bad arguments with exit 2. On a GPU machine
/// the no-GPU case is skipped (the script then really runs compute-sanitizer: minutes).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_support.hpp"

namespace {

shell_result sh(const std::string& cmd) { return run_shell(cmd + " 2>&1"); }

std::string script(const std::string& args) {
  return std::string("cd '") + GPUBENCH_SOURCE_DIR + "' && GB='" + GPUBENCH_EXE + "' bash scripts/sanitize.sh " + args;
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// Stand-ins for gpubench and compute-sanitizer (shell scripts written into `dir`), and the script
// run against them: `args` is what follows `bash scripts/sanitize.sh`, `env` any extra variables.
struct stand_ins {
  std::string gb, san;
};
stand_ins write_stand_ins(const temp_dir& dir, const std::string& gb_body, const std::string& san_body) {
  stand_ins s{(dir.path / "gpubench").string(), (dir.path / "compute-sanitizer").string()};
  std::ofstream(s.gb) << "#!/bin/sh\n" << gb_body;
  std::ofstream(s.san) << "#!/bin/sh\n[ \"$1\" = --help ] && { echo '  --kernel-name-exclude'; exit 0; }\n" << san_body;
  EXPECT_EQ(run_shell("chmod +x '" + s.gb + "' '" + s.san + "'").status, 0);
  return s;
}
shell_result run_against(const stand_ins& s, const std::string& args, const std::string& env = "") {
  return sh(std::string("cd '") + GPUBENCH_SOURCE_DIR + "' && GB='" + s.gb + "' SANITIZER='" + s.san + "' " + env +
            " bash scripts/sanitize.sh " + args);
}

TEST(SanitizeScript, ParsesAsBash) {
  const auto r = sh(std::string("bash -n '") + GPUBENCH_SOURCE_DIR + "/scripts/sanitize.sh'");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(SanitizeScript, BadArgumentsAreUsageErrors) {
  auto r = sh(script("--tools memchek"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "unknown tool 'memchek'")) << r.output;
  r = sh(script("--chapters 'one'"));
  EXPECT_EQ(r.status, 2) << r.output;
  r = sh(script("--frobnicate"));
  EXPECT_EQ(r.status, 2) << r.output;
  for (const char* bad : {"'ch05/a b'", "'ch05/a;b'", "ch05/", "bias_in_place"}) {
    r = sh(script(std::string("--pair ") + bad));
    EXPECT_EQ(r.status, 2) << bad << ": " << r.output;
    EXPECT_TRUE(has(r.output, "--pair needs an id")) << r.output;
  }
}

TEST(SanitizeScript, WithoutAGpuItSaysSoAndFails) {
  const auto device = sh(std::string("'") + GPUBENCH_EXE + "' device");
  if (device.status == 0) GTEST_SKIP() << "a CUDA device is present";
  const auto r = sh(script("--out /nonexistent-dir-never-created"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, "compute-sanitizer needs a GPU")) << r.output;
  EXPECT_TRUE(has(r.output, "No CUDA device")) << r.output;  // gpubench's own reason, passed on
}

// What the script makes of compute-sanitizer's own failures, with stand-ins for both programs: a
// "gpubench" whose `device` succeeds, and a "compute-sanitizer" that reports a clean memcheck,
// crashes under racecheck (as it did inside cuBLAS on an H100) and hangs under synccheck.
TEST(SanitizeScript, NamesAToolCrashAndATimeoutAsFailedRuns) {
  temp_dir dir("gpubench_sanitize_script");
  const stand_ins fake = write_stand_ins(dir, "exit 0\n",
                                         "case \"$2\" in\n"
                                         "  memcheck) echo '========= ERROR SUMMARY: 0 errors' ;;\n"
                                         "  racecheck) echo '========= Internal Sanitizer Error: The Sanitizer failed to "
                                         "handle a hardware exception.'; echo '========= RACECHECK SUMMARY: 1 hazard "
                                         "displayed (1 error, 0 warnings)'; exit 1 ;;\n"
                                         "  synccheck) sleep 30 ;;\n"
                                         "esac\n");
  const auto r = run_against(fake,
                             "--chapters 5 --tools 'memcheck racecheck synccheck' --out '" +
                                 (dir.path / "logs").string() + "'",
                             "SANITIZE_TIMEOUT=1");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, "ch05  memcheck   ok")) << r.output;
  EXPECT_TRUE(has(r.output, "ch05  racecheck  TOOL-CRASH")) << r.output;
  EXPECT_TRUE(has(r.output, "ch05  synccheck  TIMEOUT")) << r.output;
  EXPECT_TRUE(has(r.output, "total: 0 errors in gpubench's kernels, 2 failed runs")) << r.output;
}

// --per-pair: one sanitizer process per pair (ids from `gpubench list --json`), so a tool crash in
// one pair (here ch05/gemm_pair, as racecheck crashed inside cuBLAS) leaves the other checked, and
// every line names its pair.
TEST(SanitizeScript, PerPairRunsEachPairAloneAndNamesIt) {
  temp_dir dir("gpubench_sanitize_per_pair");
  const stand_ins fake = write_stand_ins(
      dir,
      "[ \"$1\" = list ] && printf '[{\"chapter\": 5, \"pairs\": [\\n"
      "  {\"id\": \"ch05/gemm_pair\", \"name\": \"gemm_pair\"},\\n"
      "  {\"id\": \"ch05/transpose_pair\", \"name\": \"transpose_pair\"}]}]\\n'\n"
      "exit 0\n",
      "case \"$*\" in\n"
      "  *racecheck*ch05/gemm_pair*) echo '========= Internal Sanitizer Error: The Sanitizer failed to handle a hardware "
      "exception.'; exit 1 ;;\n"
      "  *racecheck*) echo '========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)' ;;\n"
      "  *) echo '========= ERROR SUMMARY: 0 errors' ;;\n"
      "esac\n");
  const std::string logs = (dir.path / "logs").string();
  const auto r = run_against(fake, "--chapters 5 --tools 'memcheck racecheck' --per-pair --out '" + logs + "'");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, "ch05/gemm_pair memcheck   ok")) << r.output;
  EXPECT_TRUE(has(r.output, "ch05/gemm_pair racecheck  TOOL-CRASH")) << r.output;
  EXPECT_TRUE(has(r.output, "ch05/transpose_pair memcheck   ok")) << r.output;
  EXPECT_TRUE(has(r.output, "ch05/transpose_pair racecheck  ok")) << r.output;
  EXPECT_TRUE(has(r.output, "total: 0 errors in gpubench's kernels, 1 failed runs")) << r.output;
  EXPECT_TRUE(std::filesystem::exists(logs + "/ch05-transpose_pair-racecheck.log")) << r.output;
}

// Racecheck checks every kernel (a cluster kernel left unchecked crashes it) and attributes each
// reported race by the kernel it names: cuBLAS's nvjet kernels are third-party and do not fail
// the run, a race in any other kernel does. --pair selects pairs directly.
TEST(SanitizeScript, RacecheckAttributesEachRaceToItsKernel) {
  temp_dir dir("gpubench_sanitize_races");
  const stand_ins fake = write_stand_ins(
      dir, "exit 0\n",
      "case \"$*\" in *--kernel-name*) echo 'no kernel filter expected under racecheck'; exit 3 ;; esac\n"
      "echo '========= Error: Race reported between Read access at nvjet_sm90_tst_96x128_64x7_2x1_v_bz_TNN+0xa60'\n"
      "echo '=========     and Write access at nvjet_sm90_tst_96x128_64x7_2x1_v_bz_TNN+0x3a80 [512 hazards]'\n"
      "case \"$*\" in\n"
      "  *ch05/racy_pair*)\n"
      "    echo '========= Error: Race reported between Write access at void transpose_tile<(int)32>(float*)+0x90'\n"
      "    echo '=========     and Read access at void transpose_tile<(int)32>(float*)+0x120 [64 hazards]'\n"
      "    echo '========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)'; exit 1 ;;\n"
      "  *) echo '========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)' ;;\n"
      "esac\n");
  const auto r = run_against(
      fake, "--tools racecheck --pair ch05/clean_pair --pair ch05/racy_pair --out '" + (dir.path / "logs").string() + "'");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, "ch05/clean_pair racecheck  ok           0 errors (+ 1 in kernels matching \"nvjet\", not ours)"))
      << r.output;
  EXPECT_TRUE(has(r.output, "ch05/racy_pair racecheck  ERRORS       1 errors (+ 1 in kernels matching \"nvjet\", not ours)"))
      << r.output;
  EXPECT_TRUE(has(r.output, "total: 1 errors in gpubench's kernels, 0 failed runs; 2 third-party errors")) << r.output;
}

// Past the print limit compute-sanitizer adds "ERROR SUMMARY: M errors were not printed" after the
// total: the total counts, and racecheck's unprinted races count as ours (only printed ones can be
// attributed). The H200 initcheck run of bias_in_place printed 196508, the unprinted part, as its count.
TEST(SanitizeScript, ErrorsBeyondThePrintLimitCountInFull) {
  temp_dir dir("gpubench_sanitize_print_limit");
  const stand_ins fake = write_stand_ins(
      dir, "exit 0\n",
      "case \"$*\" in\n"
      "  *racecheck*)\n"
      "    echo '========= Error: Race reported between Read access at nvjet_sm90_tst_64x8_2x1_v_bz_TNT+0xa60'\n"
      "    echo '========= Error: Race reported between Read access at nvjet_sm90_tst_64x8_2x1_v_bz_TNT+0xb70'\n"
      "    echo '========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)'\n"
      "    echo '========= ERROR SUMMARY: 5 errors'\n"
      "    echo '========= ERROR SUMMARY: 3 errors were not printed. Use --print-limit option to adjust'; exit 1 ;;\n"
      "  *) echo '========= ERROR SUMMARY: 150 errors'\n"
      "     echo '========= ERROR SUMMARY: 50 errors were not printed. Use --print-limit option to adjust' ;;\n"
      "esac\n");
  const auto r = run_against(fake, "--tools 'initcheck racecheck' --pair ch05/some_pair --out '" +
                                       (dir.path / "logs").string() + "'");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, "ch05/some_pair initcheck  ERRORS       150 errors")) << r.output;
  EXPECT_TRUE(has(r.output, "ch05/some_pair racecheck  ERRORS       3 errors (+ 2 in kernels matching \"nvjet\"")) << r.output;
  EXPECT_TRUE(has(r.output, "total: 153 errors in gpubench's kernels")) << r.output;
}

// Pairs whose smallest size is still a large GEMM run alone at a size that takes the same code
// paths; the others at their smallest size, as before.
TEST(SanitizeScript, LargeGemmPairsRunAtASmallerSizeWhenAlone) {
  temp_dir dir("gpubench_sanitize_axes");
  const stand_ins fake = write_stand_ins(dir, "exit 0\n",
                                         "echo \"args: $*\"\n"
                                         "echo '========= ERROR SUMMARY: 0 errors'\n");
  const std::string logs = (dir.path / "logs").string();
  const auto r = run_against(fake, "--tools memcheck --pair ch05/matmul_precision --pair ch05/gemm_alignment --pair "
                                   "ch05/pretransposed_weights --out '" + logs + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  const auto log = [&](const std::string& pair) {
    return run_shell("cat '" + logs + "/ch05-" + pair + "-memcheck.log'").output;
  };
  EXPECT_TRUE(has(log("matmul_precision"), "run --pair ch05/matmul_precision --axis shape=1024 --smallest"));
  EXPECT_TRUE(has(log("gemm_alignment"), "run --pair ch05/gemm_alignment --axis n=480 --smallest"));
  EXPECT_TRUE(has(log("pretransposed_weights"), "run --pair ch05/pretransposed_weights --smallest"));
}

}  // namespace
