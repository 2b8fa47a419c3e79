// The roofline model (hand-computed ridge points and bounds), its construction from profiles,
// the text table, and the gnuplot rendering of a real profile (PNG size, SVG labels).
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include <unistd.h>

#include <gtest/gtest.h>

#include "gpubench/roofline.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace gpubench;

namespace {

record make_record(const std::string& pair, const std::string& variant, std::int64_t n, double flops, double bytes,
                   double median_s, bytes_path path = bytes_path::dram) {
  record r;
  r.chapter = 1;
  r.pair = pair;
  r.variant = variant;
  r.size = size_point({{"n", n}});
  r.declared.flops = flops;
  r.declared.bytes = bytes;
  r.declared.path = path;
  summary s;
  s.count = 10;
  s.median = median_s;
  r.stats = s;
  return r;
}

profile synthetic_profile() {
  profile p;
  p.prov.device.name = "Test GPU";
  p.ceil.source = "theoretical";
  p.ceil.dram_bytes_per_s = 2e12;
  p.ceil.fp32_flops_per_s = 1e13;
  p.ceil.fp64_flops_per_s = 5e12;
  // gemm n=1: baseline, fast; n=2: a failed baseline, then a variant (no arrow from a failed baseline).
  p.records.push_back(make_record("gemm", "baseline", 1, 1e9, 1e8, 1e-3));  // AI 10, 1 TFLOP/s
  p.records.push_back(make_record("gemm", "fast", 1, 1e9, 1e8, 2e-4));      // 5 TFLOP/s
  p.records.push_back(make_record("gemm", "baseline", 2, 1e9, 1e7, 1e-3));
  p.records.back().status = record_status::failed;
  p.records.push_back(make_record("gemm", "fast", 2, 1e9, 1e7, 5e-4));  // AI 100, 2 TFLOP/s
  p.records.push_back(make_record("copy", "baseline", 1, 0, 1e8, 1e-3, bytes_path::pcie));
  p.records.push_back(make_record("scan", "baseline", 1, 1e6, 1e6, 1e-3, bytes_path::pcie));
  return p;
}

roofline_model simple_model() {
  roofline_model m;
  m.compute = {{"fp32", 1e13}};
  m.memory = {{"dram", 2e12}};
  return m;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

}  // namespace

TEST(Roofline, RidgePointIsComputeOverBandwidth) {
  EXPECT_NEAR(ridge_point(66.9e12, 3.35e12), 19.97, 0.01);
  EXPECT_DOUBLE_EQ(ridge_point(1e13, 2e12), 5.0);
  EXPECT_EQ(ridge_point(1e13, 0), 0);  // no bandwidth: no ridge rather than a division by zero
}

TEST(Roofline, MemoryBoundPointIsJudgedAgainstTheSlope) {
  roof_point p;
  p.flops_kind = "fp32";
  p.intensity = 1;
  p.flops_per_s = 1e12;
  const roof_bound b = bound_of(simple_model(), p);
  EXPECT_TRUE(b.memory_bound);
  EXPECT_EQ(b.roof, "dram");
  EXPECT_DOUBLE_EQ(b.attainable, 2e12);
  EXPECT_DOUBLE_EQ(b.fraction, 0.5);
}

TEST(Roofline, ComputeBoundPointIsJudgedAgainstItsRoof) {
  roof_point p;
  p.flops_kind = "fp32";
  p.intensity = 100;
  p.flops_per_s = 8e12;
  const roof_bound b = bound_of(simple_model(), p);
  EXPECT_FALSE(b.memory_bound);
  EXPECT_EQ(b.roof, "fp32");
  EXPECT_DOUBLE_EQ(b.attainable, 1e13);
  EXPECT_DOUBLE_EQ(b.fraction, 0.8);
  // A kind without a roof (tensor cores under theoretical ceilings) falls back to the highest roof.
  p.flops_kind = "bf16";
  EXPECT_EQ(bound_of(simple_model(), p).roof, "fp32");
}

TEST(Roofline, BuildsPointsArrowsAndSkipsFromAProfile) {
  const roofline_model m = build_roofline({synthetic_profile()}, {"runs/test.json"});
  EXPECT_EQ(m.ceilings_source, "theoretical");
  ASSERT_EQ(m.compute.size(), 2u);
  EXPECT_EQ(m.compute[0].name, "fp32");
  EXPECT_EQ(m.compute[1].name, "fp64");
  ASSERT_EQ(m.memory.size(), 1u);
  EXPECT_EQ(m.memory[0].name, "dram");
  EXPECT_DOUBLE_EQ(m.memory[0].value, 2e12);

  ASSERT_EQ(m.points.size(), 3u);
  EXPECT_EQ(m.points[0].id, "ch01/gemm/baseline[n=1]");
  EXPECT_DOUBLE_EQ(m.points[0].intensity, 10);
  EXPECT_DOUBLE_EQ(m.points[0].flops_per_s, 1e12);
  EXPECT_DOUBLE_EQ(m.points[0].bytes_per_s, 1e11);
  EXPECT_DOUBLE_EQ(m.points[1].flops_per_s, 5e12);
  EXPECT_DOUBLE_EQ(m.points[2].intensity, 100);
  EXPECT_EQ(m.points[2].flops_kind, "fp32");

  // Only n=1 has a placed baseline; n=2's baseline failed, so its variant gets no arrow.
  ASSERT_EQ(m.arrows.size(), 1u);
  EXPECT_EQ(m.arrows[0], (std::pair<std::size_t, std::size_t>{0, 1}));

  ASSERT_EQ(m.skipped.size(), 3u);
  EXPECT_NE(m.skipped[0].find("gemm/baseline[n=2]: status failed"), std::string::npos) << m.skipped[0];
  EXPECT_NE(m.skipped[1].find("copy/baseline[n=1]: no FLOPs (a transfer)"), std::string::npos) << m.skipped[1];
  EXPECT_NE(m.skipped[2].find("bytes cross PCIe, not DRAM"), std::string::npos) << m.skipped[2];
  EXPECT_EQ(m.title, "Roofline — Test GPU — test.json, ceilings theoretical");

  const std::string table = roofline_table(m);
  EXPECT_NE(table.find("10.0 TFLOP/s"), std::string::npos) << table;         // the fp32 roof
  EXPECT_NE(table.find("ridge vs dram at 5.00 FLOP/B"), std::string::npos) << table;
  EXPECT_NE(table.find("ch01/gemm/fast[n=1]"), std::string::npos) << table;
  EXPECT_NE(table.find("fp32    50.0%"), std::string::npos) << table;  // fast n=1: AI 10 > ridge 5, 5 of 10 TFLOP/s
  EXPECT_NE(table.find("skipped (3)"), std::string::npos) << table;
}

TEST(Roofline, MeasuredCeilingsAddTensorRoofsAndL2) {
  profile p = synthetic_profile();
  p.ceil.source = "measured";
  p.ceil.table = {{"dram", "B/s", 1.5e12, 2e12, 0, ""},   {"l2", "B/s", 6e12, 0, 0, ""},
                  {"fp32", "FLOP/s", 9e12, 1e13, 0, ""},  {"bf16", "FLOP/s", 8e14, 0, 0, ""},
                  {"launch_graph", "s", 2e-6, 0, 0, ""},  {"pcie_h2d_pinned", "B/s", 5e10, 0, 0, ""}};
  p.ceil.dram_bytes_per_s = 2e12;  // as the writer sets it: the faster of the copy kernel and cudaMemcpy
  profile second = synthetic_profile();
  second.prov.device.name = "Other GPU";
  const roofline_model m = build_roofline({p, second}, {"a.json", "dir/b.json"});
  EXPECT_EQ(m.ceilings_source, "measured");
  ASSERT_EQ(m.compute.size(), 2u);  // the measured table replaces the theoretical fields
  EXPECT_EQ(m.compute[1].name, "bf16");
  ASSERT_EQ(m.memory.size(), 2u);
  EXPECT_DOUBLE_EQ(m.memory[0].value, 2e12);  // the DRAM ceiling the floors use, not the kernel's 1.5e12
  EXPECT_EQ(m.memory[1].name, "l2");
  ASSERT_EQ(m.points.size(), 6u);
  EXPECT_EQ(m.points[3].id, "b:ch01/gemm/baseline[n=1]");
  EXPECT_EQ(m.arrows.size(), 2u);
  EXPECT_NE(m.title.find("a.json, b.json, ceilings measured"), std::string::npos) << m.title;
  EXPECT_NE(m.title.find("devices differ"), std::string::npos) << m.title;
}

TEST(Roofline, UsageErrorsWhenNothingCanBePlaced) {
  profile no_ceilings = synthetic_profile();
  no_ceilings.ceil = {};
  EXPECT_NE(usage_message([&] { build_roofline({no_ceilings}, {"x.json"}); }).find("gpubench device --ceilings"),
            std::string::npos);

  profile transfers_only = synthetic_profile();
  transfers_only.records.erase(transfers_only.records.begin(), transfers_only.records.begin() + 4);
  EXPECT_NE(usage_message([&] { build_roofline({transfers_only}, {"x.json"}); }).find("nothing to place on a roofline"),
            std::string::npos);
  EXPECT_NE(usage_message([&] { build_roofline({}, {}); }).find("no profile"), std::string::npos);
  EXPECT_NE(usage_message([&] { render_roofline(simple_model(), "chart.pdf"); }).find(".png or .svg"), std::string::npos);
}

namespace {
fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("gpubench_roofline_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

roofline_model real_model() {
  const fs::path src = fs::path(GPUBENCH_SOURCE_DIR) / "profiles/reference" / "h200-ch01.json";
  return build_roofline({read_profile(src)}, {src.string()});
}

bool has_gnuplot() { return !find_gnuplot().empty(); }
}  // namespace

TEST(RooflineRender, RealProfileIsPlacedAndTransfersSkipped) {
  const roofline_model m = real_model();
  EXPECT_EQ(m.points.size(), 10u);   // batched_gemm (6) and cuda_graphs (4)
  EXPECT_EQ(m.skipped.size(), 16u);  // every pinned_transfers record
  for (const roof_point& p : m.points)
    if (p.id == "ch01/batched_gemm/optimized[batch=40,m=8192,n=256,k=256]") {
      EXPECT_NEAR(p.intensity, 63.0, 0.1);  // 2·40·8192·256·256 FLOP over 4·40·(2·8192·256 + 256·256) B
      EXPECT_GT(p.flops_per_s, 40e12);
    }
}

TEST(RooflineRender, PngFromARealProfileIsTheOnlyFileWritten) {
  const fs::path dir = fresh_dir("png");
  const render_result r = render_roofline(real_model(), dir / "roof.png");
  EXPECT_TRUE(r.script.empty() && r.data.empty());  // side files only with keep_script
  if (!has_gnuplot()) {
    EXPECT_FALSE(r.image_written);
    EXPECT_NE(r.message.find("gnuplot-nox"), std::string::npos) << r.message;
    EXPECT_TRUE(fs::is_empty(dir));
    GTEST_SKIP() << "gnuplot is not installed: " << r.message;
  }
  ASSERT_TRUE(r.image_written) << r.message;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  const std::string png = slurp(dir / "roof.png");
  ASSERT_GE(png.size(), 24u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  auto be32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(png[at + i]);
    return v;
  };
  EXPECT_EQ(be32(16), 1600u);
  EXPECT_EQ(be32(20), 1000u);
  fs::remove_all(dir);
}

TEST(RooflineRender, SvgFromARealProfileCarriesTheRoofLabels) {
  const fs::path dir = fresh_dir("svg");
  const render_result r = render_roofline(real_model(), dir / "roof.svg", {.keep_script = true});
  EXPECT_EQ(r.script, dir / "roof.gp");
  EXPECT_EQ(r.data, dir / "roof.dat");
  EXPECT_TRUE(fs::exists(dir / "roof.gp"));
  EXPECT_TRUE(fs::exists(dir / "roof.dat"));
  const std::string script = slurp(dir / "roof.gp");
  EXPECT_NE(script.find("set logscale xy"), std::string::npos);
  EXPECT_NE(script.find("fp32 66.9 TFLOP/s"), std::string::npos);
  if (!has_gnuplot()) {
    EXPECT_FALSE(r.image_written);
    EXPECT_NE(r.message.find("gnuplot"), std::string::npos) << r.message;
    GTEST_SKIP() << "gnuplot is not installed: " << r.message;
  }
  ASSERT_TRUE(r.image_written) << r.message;
  const std::string svg = slurp(dir / "roof.svg");
  EXPECT_TRUE(svg.starts_with("<?xml") || svg.starts_with("<svg")) << svg.substr(0, 80);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("fp32 66.9 TFLOP/s"), std::string::npos);
  EXPECT_NE(svg.find("DRAM 4.81 TB/s"), std::string::npos);
  fs::remove_all(dir);
}

TEST(RooflineRender, MissingGnuplotStillWritesAKeptScript) {
  const fs::path dir = fresh_dir("nognuplot");
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  ::setenv("PATH", (dir / "empty").c_str(), 1);  // nothing there: gnuplot cannot be found
  EXPECT_TRUE(find_gnuplot().empty());
  const render_result kept = render_roofline(real_model(), dir / "roof.png", {.keep_script = true});
  const render_result plain = render_roofline(real_model(), dir / "plain.png");
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_FALSE(kept.image_written);
  EXPECT_NE(kept.message.find("gnuplot not found"), std::string::npos) << kept.message;
  EXPECT_NE(kept.message.find("roof.gp'"), std::string::npos) << kept.message;
  EXPECT_TRUE(fs::exists(dir / "roof.gp"));
  EXPECT_TRUE(fs::exists(dir / "roof.dat"));
  EXPECT_FALSE(fs::exists(dir / "roof.png"));
  EXPECT_FALSE(plain.image_written);
  EXPECT_NE(plain.message.find("--format table"), std::string::npos) << plain.message;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);  // roof.gp, roof.dat
  fs::remove_all(dir);
}

TEST(RooflineRender, FindGnuplotSearchesPathInOrderWithoutAShell) {
  const fs::path dir = fresh_dir("path");
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "b");
  std::ofstream(dir / "a" / "gnuplot") << "not executable";
  std::ofstream(dir / "b" / "gnuplot") << "#!/bin/sh\n";
  fs::permissions(dir / "b" / "gnuplot", fs::perms::owner_all);
  fs::create_directories(dir / "c" / "gnuplot");  // a directory is no program
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  ::setenv("PATH", ((dir / "c").string() + ":" + (dir / "a").string() + ":" + (dir / "b").string()).c_str(), 1);
  const fs::path found = find_gnuplot();
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(found, dir / "b" / "gnuplot");
  fs::remove_all(dir);
}
