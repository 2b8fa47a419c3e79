// The measured roofline (points from counters, the model kept beside them) and the chart's
// geometry on the committed profiles: panels, legends that hold every series, axes fitted to the
// data, labels that never overlap one another nor any marker, no two series of a panel drawn
// alike, one arrow per size, and the page-width layout the HTML report draws 1:1.
#include <algorithm>
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "gpubench/profile.hpp"
#include "gpubench/roofline.hpp"
#include "roofline/chart_layout.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace gpubench;

namespace {

fs::path committed(const std::string& name) { return fs::path(GPUBENCH_SOURCE_DIR) / "profiles/reference" / name; }

roofline_model model_of(const std::vector<std::string>& names, const roofline_options& o = {}) {
  std::vector<profile> ps;
  std::vector<std::string> sources;
  for (const std::string& n : names) {
    ps.push_back(read_profile(committed(n)));
    sources.push_back(committed(n).string());
  }
  return build_roofline(ps, sources, o);
}

// A record that moved 3× its modelled bytes, with counted FLOPs of one kind and L2 bytes.
profile counted_profile(double counted_flops, const char* kind_key) {
  profile p;
  p.prov.device.name = "Test GPU";
  p.ceil.source = "theoretical";
  p.ceil.dram_bytes_per_s = 2e12;
  p.ceil.fp32_flops_per_s = 1e13;
  p.ceil.bf16_flops_per_s = 1e15;
  record r;
  r.chapter = 2;
  r.pair = "aos_soa";
  r.variant = "aos";
  r.size = size_point({{"n", 1}});
  r.declared.flops = 1e9;
  r.declared.bytes = 1e8;
  r.declared.path = bytes_path::dram;
  summary s;
  s.count = 10;
  s.median = 1e-3;
  r.stats = s;
  metric_result mr;
  mr.status = metrics_status::collected;
  mr.derived = {{"dram_bytes", 3e8}, {"l2_bytes", 6e8}};
  if (counted_flops > 0) mr.derived["flops"] = counted_flops, mr.derived[kind_key] = counted_flops;
  r.metrics = mr;
  p.records.push_back(r);
  return p;
}

}  // namespace

TEST(RooflineCounters, CountedPointKeepsItsModelPlacementBeside) {
  const roofline_model m = build_roofline({counted_profile(2e9, "flops_fp32")}, {"c.json"});
  ASSERT_EQ(m.points.size(), 1u);
  const roof_point& p = m.points[0];
  EXPECT_EQ(p.source, point_source::counters);
  EXPECT_DOUBLE_EQ(p.intensity, 2e9 / 3e8);      // counted FLOPs over counted DRAM bytes
  EXPECT_DOUBLE_EQ(p.flops_per_s, 2e12);          // counted FLOPs over the median
  EXPECT_DOUBLE_EQ(p.bytes_per_s, 3e11);
  EXPECT_DOUBLE_EQ(p.l2_intensity, 2e9 / 6e8);
  EXPECT_DOUBLE_EQ(p.model_intensity, 10);        // 1e9 / 1e8, kept for --points both
  EXPECT_DOUBLE_EQ(p.model_flops_per_s, 1e12);
  EXPECT_EQ(p.flops_kind, "fp32");
}

TEST(RooflineCounters, TensorOpsGoToTheirPrecisionsRoof) {
  const roofline_model m = build_roofline({counted_profile(2e9, "flops_tensor_bf16")}, {"c.json"});
  EXPECT_EQ(m.points[0].flops_kind, "bf16");
  EXPECT_EQ(bound_of(m, m.points[0]).roof, "dram");  // intensity 6.7 is far left of bf16's ridge (500)
}

TEST(RooflineCounters, NoCountedFlopsKeepsCountedBytesWithModelledFlops) {
  const roofline_model m = build_roofline({counted_profile(0, "")}, {"c.json"});
  EXPECT_EQ(m.points[0].source, point_source::counted_bytes);
  EXPECT_DOUBLE_EQ(m.points[0].intensity, 1e9 / 3e8);
  EXPECT_DOUBLE_EQ(m.points[0].flops_per_s, 1e12);
}

TEST(RooflineCounters, ModelModeIgnoresCounters) {
  const roofline_model m = build_roofline({counted_profile(2e9, "flops_fp32")}, {"c.json"}, {.points = points_mode::model});
  EXPECT_EQ(m.points[0].source, point_source::model);
  EXPECT_DOUBLE_EQ(m.points[0].intensity, 10);
  EXPECT_DOUBLE_EQ(m.points[0].l2_intensity, 0);
}

// A real --metrics profile: every point from counters, and the two-pass softmax's extra traffic
// visible as a lower counted intensity than its model's.
TEST(RooflineCounters, MetricsProfilePlacesFromCountersAndTheTableSaysSo) {
  const roofline_model m = model_of({"h100-ch03-metrics.json"});
  ASSERT_EQ(m.points.size(), 22u);
  for (const roof_point& p : m.points) EXPECT_EQ(p.source, point_source::counters) << p.id;
  const auto find = [&](const std::string& id) {
    return *std::find_if(m.points.begin(), m.points.end(), [&](const roof_point& p) { return p.id == id; });
  };
  const roof_point& base = find("ch03/softmax_fusion/baseline[rows=16384,cols=4096]");
  const roof_point& fused = find("ch03/softmax_fusion/fused[rows=16384,cols=4096]");
  EXPECT_LT(base.intensity / base.model_intensity, fused.intensity / fused.model_intensity);
  EXPECT_GT(base.l2_intensity, 0);
  const std::string table = roofline_table(m);
  EXPECT_NE(table.find("points: 22 from counters"), std::string::npos) << table;
  EXPECT_NE(table.find("model FLOP/B"), std::string::npos) << table;
  EXPECT_NE(table.find("L2 FLOP/B"), std::string::npos) << table;
  const std::string model_table = roofline_table(model_of({"h100-ch03-metrics.json"}, {.points = points_mode::model}));
  EXPECT_NE(model_table.find("22 from the work model (--points model)"), std::string::npos) << model_table;
}

namespace {

// Every label of every panel inside its plot area and clear of every other label of the panel;
// every key inside its panel's cell.
void expect_readable(const roofline_model& m, const detail::chart_layout& l) {
  std::set<std::string> in_legends, series;
  for (const roof_point& p : m.points) series.insert(detail::prefix_of(p) + p.pair + "/" + p.variant);
  for (const detail::chart_panel& panel : l.panels) {
    std::vector<detail::placed_label> all = panel.roof_labels;
    all.insert(all.end(), panel.size_labels.begin(), panel.size_labels.end());
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (all[i].angle == 0) EXPECT_TRUE(all[i].box.inside(panel.axes.area)) << panel.title << ": " << all[i].text;
      for (std::size_t j = i + 1; j < all.size(); ++j)
        EXPECT_FALSE(all[i].box.overlaps(all[j].box)) << panel.title << ": '" << all[i].text << "' and '" << all[j].text << "'";
    }
    // Every label's text clear of every marker of its panel (DRAM points, L2 ×, model points).
    std::vector<detail::px_box> marks;
    const auto mark = [&](double x, double y) {
      const double px = panel.axes.px_x(x), py = panel.axes.px_y(y);
      marks.push_back({px - 8, py - 8, px + 8, py + 8});
    };
    for (std::size_t i : panel.points) {
      mark(m.points[i].intensity, m.points[i].flops_per_s);
      if (panel.l2_points && m.points[i].l2_intensity > 0) mark(m.points[i].l2_intensity, m.points[i].flops_per_s);
      if (panel.model_ties) mark(m.points[i].model_intensity, m.points[i].model_flops_per_s);
    }
    // (A roof label that found no clear spot is drawn on an opaque box over the data instead of
    // leaving its roof unnamed; the layout counts on that being rare, and says so.)
    for (const detail::placed_label& label : all)
      for (const detail::px_box& part : label.boxed ? std::vector<detail::px_box>{} : label.parts)
        for (const detail::px_box& mk : marks)
          EXPECT_FALSE(part.overlaps(mk)) << panel.title << ": '" << label.text << "' over a marker";
    // No two series of a panel look alike.
    std::set<std::pair<int, int>> looks;
    for (const detail::chart_series& s : panel.series)
      EXPECT_TRUE(looks.insert({s.color, s.marker}).second)
          << panel.title << ": " << s.title << " looks like another series";
    // One arrow per baseline, to the fastest of its size's variants.
    std::set<std::size_t> from;
    for (const auto& [b, v] : panel.arrows)
      EXPECT_TRUE(from.insert(b).second) << panel.title << ": two arrows from one baseline";
    for (const detail::chart_series& s : panel.series) in_legends.insert(s.key);
    EXPECT_GE(panel.key_entries, panel.series.size());
    EXPECT_LE(panel.key_y - static_cast<double>(panel.key_entries) * detail::kLabelH * 1.3, panel.cell.y1)
        << "the key's rows fit in the panel's height";
    EXPECT_GE(panel.key_y - static_cast<double>(panel.key_entries) * detail::kLabelH * 1.3, panel.cell.y0) << panel.title;
    EXPECT_LE(panel.key_x, panel.cell.x1);
    // Axes fit the data: no more than a few decades beyond the points and the roofs' ridges.
    EXPECT_LT(std::log10(panel.axes.xmax / panel.axes.xmin), 6.5) << panel.title;
  }
  EXPECT_EQ(in_legends, series) << "every series has a legend entry";
}

}  // namespace

TEST(RooflineLayout, ChapterFiveAloneGetsOnePanelPerPair) {
  const roofline_model m = model_of({"h100-ch05-metrics.json"});
  const detail::chart_layout l = detail::layout_chart(m, chart_group::automatic);
  EXPECT_EQ(l.group, chart_group::pair);  // 17 series: too many for one legend
  EXPECT_EQ(l.panels.size(), 6u);
  expect_readable(m, l);
  std::size_t size_labels = 0;
  for (const auto& p : l.panels) size_labels += p.size_labels.size();
  EXPECT_GT(size_labels, 10u) << "thinning must leave most sizes labelled";
}

// Chapter 2 both ways: from the work model (h100-ch02.json) and from counters
// (h100-ch02-metrics.json, the one docs/results/h100.md draws chapters 2, 3 and 5 from).
class RooflineLayoutThreeChapters : public ::testing::TestWithParam<const char*> {};
INSTANTIATE_TEST_SUITE_P(Chapter2, RooflineLayoutThreeChapters,
                         ::testing::Values("h100-ch02.json", "h100-ch02-metrics.json"));

TEST_P(RooflineLayoutThreeChapters, OnePanelPerChapterAndEveryGroupingKeepsLabelsApart) {
  const roofline_model m = model_of({GetParam(), "h100-ch03-metrics.json", "h100-ch05-metrics.json"});
  ASSERT_EQ(m.points.size(), 109u);
  const detail::chart_layout l = detail::layout_chart(m, chart_group::automatic);
  EXPECT_EQ(l.group, chart_group::chapter);
  ASSERT_EQ(l.panels.size(), 3u);
  expect_readable(m, l);
  // One profile per panel: its name goes into the panel's title, not into 17 legend entries.
  EXPECT_EQ(l.panels[2].title, "chapter 5 — h100-ch05-metrics");
  EXPECT_EQ(l.panels[2].series[0].title, "bias_in_place/new_output");
  // The memory-bound chapter 2 is not stretched to the FP8 tensor peak: only FP32's roof.
  ASSERT_EQ(l.panels[0].compute.size(), 1u);
  EXPECT_EQ(l.panels[0].compute[0].name, "fp32");
  EXPECT_LE(l.panels[0].axes.xmax, 100);  // points at 0.1–4 FLOP/B, FP32's ridge at 22

  const roofline_model both = model_of({GetParam(), "h100-ch03-metrics.json", "h100-ch05-metrics.json"},
                                       {.points = points_mode::both});
  for (const chart_group g : {chart_group::none, chart_group::pair, chart_group::chapter}) {
    const detail::chart_layout gl = detail::layout_chart(both, g);
    EXPECT_EQ(gl.group, g);
    expect_readable(both, gl);
  }
  EXPECT_TRUE(detail::layout_chart(both, chart_group::chapter).panels[1].model_ties);  // ch03 has counters
  // Chapter 2's points are tied to their model points only when its profile has counters.
  EXPECT_EQ(detail::layout_chart(both, chart_group::chapter).panels[0].model_ties,
            std::string(GetParam()) == "h100-ch02-metrics.json");
}

TEST(RooflineLayout, FewSeriesStayInOnePanel) {
  const roofline_model m = model_of({"h200-ch01.json"});
  const detail::chart_layout l = detail::layout_chart(m, chart_group::automatic);
  EXPECT_EQ(l.group, chart_group::none);
  ASSERT_EQ(l.panels.size(), 1u);
  EXPECT_EQ(l.width, 1600);
  expect_readable(m, l);
}

// The CLI: the options reach the model and the chart, and bad values are the user's mistake.
TEST(RooflineCli, PointsAndGroupOptions) {
  const std::string gb = GPUBENCH_EXE, prof = committed("h100-ch03-metrics.json").string();
  const shell_result both = run_shell(gb + " roofline --from '" + prof + "' --format table --points both");
  EXPECT_EQ(both.status, 0) << both.output;
  EXPECT_NE(both.output.find("22 from counters"), std::string::npos) << both.output;
  const shell_result model = run_shell(gb + " roofline --from '" + prof + "' --format table --points model");
  EXPECT_NE(model.output.find("(--points model)"), std::string::npos) << model.output;
  EXPECT_EQ(run_shell(gb + " roofline --from '" + prof + "' --format table --points guess 2>&1").status, 2);
  EXPECT_EQ(run_shell(gb + " roofline --from '" + prof + "' --group everything 2>&1").status, 2);
}

// The HTML report draws each chapter's roofline at the page's width, panels one per row, and shows
// it 1:1, so that its text keeps the size the script gives it.
TEST(RooflineLayout, PageWidthPutsOnePanelPerRow) {
  const roofline_model m = model_of({"h100-ch05-metrics.json"});
  const detail::chart_layout l = detail::layout_chart(m, chart_group::automatic, 1232);
  EXPECT_EQ(l.width, 1232);
  ASSERT_EQ(l.panels.size(), 6u);
  for (std::size_t k = 0; k < l.panels.size(); ++k) {
    EXPECT_EQ(l.panels[k].cell.x0, 0) << k;
    EXPECT_EQ(l.panels[k].cell.x1, 1232) << k;
    EXPECT_GT(l.panels[k].axes.area.x1 - l.panels[k].axes.area.x0, 500) << "a plot area wide enough to read: " << k;
  }
  expect_readable(m, l);
}

// A ladder: every variant of a size at one intensity (the work model places them there), so arrows
// from the baseline to each would lie on one vertical line; only the one to the fastest is drawn.
TEST(RooflineLayout, LadderGetsOneArrowPerSizeToItsFastest) {
  const roofline_model m = model_of({"h100-ch07.json"}, {.points = points_mode::model});
  const detail::chart_layout l = detail::layout_chart(m, chart_group::pair);
  const auto ladder =
      std::find_if(l.panels.begin(), l.panels.end(), [](const auto& p) { return p.title == "ch07/sgemm_ladder"; });
  ASSERT_NE(ladder, l.panels.end());
  ASSERT_EQ(ladder->arrows.size(), 3u);  // n = 512, 4096, 8192
  for (const auto& [b, v] : ladder->arrows) {
    EXPECT_EQ(m.points[b].variant, "naive");
    for (std::size_t i : ladder->points)
      if (m.points[i].size == m.points[b].size)
        EXPECT_LE(m.points[i].flops_per_s, m.points[v].flops_per_s) << m.points[i].id;
  }
  expect_readable(m, l);
}

// Twenty-nine series in one pair's panel (a tuning grid drawn whole): every one its own colour
// and marker, where a cycle of eight markers would repeat.
TEST(RooflineLayout, ManySeriesNeverShareALook) {
  profile p = read_profile(committed("h100-ch02.json"));
  const record base = p.records.front();
  p.records.clear();
  for (int v = 0; v < 29; ++v) {
    record r = base;
    r.variant = "v" + std::to_string(v);
    r.stats->median *= 1 + 0.01 * v;
    p.records.push_back(r);
  }
  const roofline_model m = build_roofline({p}, {"grid.json"});
  for (const chart_group g : {chart_group::pair, chart_group::chapter, chart_group::none}) {
    const detail::chart_layout l = detail::layout_chart(m, g);
    ASSERT_EQ(l.panels.size(), 1u);
    EXPECT_EQ(l.panels[0].series.size(), 29u);
    expect_readable(m, l);
  }
}
