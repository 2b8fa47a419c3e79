// The HTML report: plan every section first (which records, which charts), draw every chart
// (speedup charts, tuning heatmaps and box plots in one gnuplot process, each chapter's roofline
// through render_roofline at the page's width), then write the page around them. Nothing in the
// page refers outside it: the style is inline, the charts are inline SVG, there is no script, and
// a Content-Security-Policy of default-src 'none' makes a browser refuse any load that would slip
// in (the browser test treats one as a failure).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "gpubench/format.hpp"
#include "gpubench/report.hpp"
#include "gpubench/roofline.hpp"
#include "gpubench/sampling.hpp"
#include "process/gnuplot_process.hpp"
#include "report/box_plot.hpp"
#include "report/gnuplot_batch.hpp"
#include "report/html_escape.hpp"
#include "report/html_parts.hpp"
#include "report/html_trend.hpp"
#include "report/pair_speedups.hpp"
#include "report/speedup_chart.hpp"
#include "report/svg_inline.hpp"
#include "report/tuning_heatmap.hpp"

namespace gpubench {

namespace fs = std::filesystem;

namespace {

using detail::html_escape;
using detail::html_id;

std::string h(std::string_view s) { return html_escape(s); }

// Each interval in the page holds with this confidence on its own.
constexpr double kConfidence = 0.95;

/// One chart of the page: its index among the charts of its kind, then its inline SVG.
struct chart_slot {
  std::optional<std::size_t> index;
  std::string svg;
  double width = 0;  ///< the chart's own width, CSS pixels
};

struct pair_plan {
  std::string id;    ///< "ch01/batched_gemm"
  std::string name;  ///< "batched_gemm"
  std::string anchor;
  std::vector<const record*> records;
  std::vector<std::string> row_ids;
  detail::pair_speedups speedups;
  bool tuning = false;  ///< a tuning grid: a heatmap instead of the speedup chart, its table fastest first
  chart_slot box, speedup, heatmap;
};

struct chapter_plan {
  int number = 0;
  std::string anchor;
  std::vector<pair_plan> pairs;
  std::optional<roofline_model> roofline;
  std::string no_roofline;  ///< why there is none (build_roofline's message)
  std::size_t tuning_left_out = 0;  ///< tuning configurations left off the roofline (the heatmap has them)
  std::string svg;
};

struct profile_plan {
  const report_profile* in = nullptr;
  std::string anchor;  ///< "p1"
  std::vector<chapter_plan> chapters;
};

/// Every chart the page draws through gnuplot, by kind.
struct chart_lists {
  std::vector<detail::box_chart> boxes;
  std::vector<detail::speedup_chart> speedups;
  std::vector<detail::tuning_heatmap> heatmaps;
};

// Each variant's samples as a box per size. A tuning grid's configurations (twenty or more) go
// along x instead, fastest first, one colour per size: a legend of twenty colours repeats them.
std::optional<detail::box_chart> box_chart_of(const pair_plan& pr) {
  detail::box_chart c;
  std::vector<std::string> sizes, labels = detail::varying_size_labels(pr.records, sizes);
  for (std::size_t k = 0; k < labels.size(); ++k)
    if (labels[k].empty()) labels[k] = sizes[k];
  std::vector<const record*> order = pr.records;
  if (pr.tuning) {
    std::map<std::string, std::size_t> rank;  // a configuration's rank at the first size it was ranked
    for (const record* r : pr.records)
      if (r->tuning && r->tuning->rank > 0) rank.try_emplace(r->variant, r->tuning->rank);
    const auto rank_of = [&](const record* r) { return rank.count(r->variant) ? rank[r->variant] : SIZE_MAX; };
    std::stable_sort(order.begin(), order.end(),
                     [&](const record* a, const record* b) { return rank_of(a) < rank_of(b); });
    c.series = labels;
  } else {
    c.groups = labels;
  }
  std::vector<std::string>& names = pr.tuning ? c.groups : c.series;
  for (const record* r : order) {
    // Only positive, finite times have a deviation from a median (the reader admits no others;
    // this keeps a profile built in code from drawing nonsense).
    std::vector<double> samples;
    for (double s : r->timing.samples_s)
      if (std::isfinite(s) && s > 0) samples.push_back(s);
    if (r->status != record_status::passed || samples.empty()) continue;
    const auto size =
        static_cast<std::size_t>(std::find(sizes.begin(), sizes.end(), r->size.to_string()) - sizes.begin());
    auto it = std::find(names.begin(), names.end(), r->variant);
    if (it == names.end()) it = names.insert(names.end(), r->variant);
    const auto name = static_cast<std::size_t>(it - names.begin());
    c.boxes.push_back({pr.tuning ? name : size, pr.tuning ? size : name, std::move(samples)});
  }
  if (c.boxes.empty()) return std::nullopt;
  return c;
}

// Every variant's speedup per size: variants along x, a line per size.
std::optional<detail::speedup_chart> speedup_chart_of(const detail::pair_speedups& sp, double threshold) {
  if (!sp.headline || sp.variants.size() < 2) return std::nullopt;
  detail::speedup_chart c;
  c.variants = sp.variants;
  c.threshold = threshold;
  for (std::size_t k = 0; k < sp.sizes.size(); ++k) {
    const detail::size_speedups& s = sp.sizes[k];
    detail::speedup_chart::line l;
    l.label = s.label.empty() ? s.size : s.label;
    l.labelled = k == *sp.headline;
    for (const detail::variant_speedup& v : s.variants) {
      const auto x = static_cast<std::size_t>(std::find(c.variants.begin(), c.variants.end(), v.rec->variant) -
                                              c.variants.begin());
      if (v.rec == s.baseline && v.rec->status == record_status::passed) l.points.push_back({x, 1, 1, 1, false});
      else if (v.speedup)
        l.points.push_back({x, v.speedup->estimate, v.speedup->low, v.speedup->high,
                            v.band == verdict::faster || v.band == verdict::slower});
    }
    if (l.points.size() > 1) c.lines.push_back(std::move(l));
  }
  if (c.lines.empty()) return std::nullopt;
  return c;
}

// The records a chapter's roofline places: every one, except that of a tuning grid only each
// size's default (its first record) and its best stand for the rest; the heatmap has the grid.
profile roofline_records(const profile& src, int chapter, std::size_t& left_out) {
  profile sub;
  sub.prov = src.prov;
  sub.ceil = src.ceil;
  sub.complete = src.complete;
  std::set<std::string> seen;
  for (const record& r : src.records) {
    if (r.chapter != chapter) continue;
    const bool first = seen.insert(r.pair + "[" + r.size.to_string() + "]").second;
    if (r.tuning && !first && r.tuning->rank != 1) {
      ++left_out;
      continue;
    }
    sub.records.push_back(r);
  }
  return sub;
}

double same_band(const report_input& in) {
  return in.compare ? in.compare->options.threshold : compare_options{}.threshold;
}

std::vector<profile_plan> plan(const report_input& in, chart_lists& charts) {
  std::vector<profile_plan> plans;
  for (std::size_t i = 0; i < in.profiles.size(); ++i) {
    const report_profile& src = in.profiles[i];
    profile_plan pp{&src, "p" + std::to_string(i + 1), {}};
    for (std::size_t k = 0; k < src.prof.records.size(); ++k) {
      const record& r = src.prof.records[k];
      auto ch = std::find_if(pp.chapters.begin(), pp.chapters.end(), [&](const chapter_plan& c) { return c.number == r.chapter; });
      if (ch == pp.chapters.end()) {
        chapter_plan c;
        c.number = r.chapter;
        c.anchor = fmt::format("{}-ch{:02d}", pp.anchor, r.chapter);
        ch = pp.chapters.insert(pp.chapters.end(), std::move(c));
      }
      const std::string id = fmt::format("ch{:02d}/{}", r.chapter, r.pair);
      auto pr = std::find_if(ch->pairs.begin(), ch->pairs.end(), [&](const pair_plan& p) { return p.id == id; });
      if (pr == ch->pairs.end()) {
        pair_plan p;
        p.id = id;
        p.name = r.pair;
        p.anchor = ch->anchor + "-" + html_id(r.pair);
        pr = ch->pairs.insert(ch->pairs.end(), std::move(p));
      }
      pr->records.push_back(&r);
      pr->row_ids.push_back(pp.anchor + "-r" + std::to_string(k + 1));
      pr->tuning = pr->tuning || r.tuning.has_value();
    }
    std::stable_sort(pp.chapters.begin(), pp.chapters.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
    for (chapter_plan& ch : pp.chapters) {
      for (pair_plan& pr : ch.pairs) {
        pr.speedups = detail::speedups_of(pr.records, kConfidence, same_band(in));
        if (auto c = box_chart_of(pr)) {
          pr.box.index = charts.boxes.size();
          charts.boxes.push_back(std::move(*c));
        }
        if (pr.tuning) {
          std::vector<std::string> sizes, labels = detail::varying_size_labels(pr.records, sizes);
          const auto notes = in.pairs.find(pr.id);
          if (auto m = detail::heatmap_of(pr.records, sizes, labels,
                                          notes == in.pairs.end() ? std::map<std::string, std::string>{}
                                                                  : notes->second.params)) {
            pr.heatmap.index = charts.heatmaps.size();
            charts.heatmaps.push_back(std::move(*m));
          }
        } else if (auto c = speedup_chart_of(pr.speedups, same_band(in))) {
          pr.speedup.index = charts.speedups.size();
          charts.speedups.push_back(std::move(*c));
        }
      }
      try {
        ch.roofline = build_roofline({roofline_records(src.prof, ch.number, ch.tuning_left_out)}, {src.source});
      } catch (const error& e) {
        if (e.code() != exit_code::usage) throw;
        ch.no_roofline = e.what();  // nothing placeable (transfers only) or no ceilings: said in the page
      }
    }
    plans.push_back(std::move(pp));
  }
  return plans;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void draw(std::vector<profile_plan>& plans, const chart_lists& charts, const report_progress& progress) {
  const fs::path gnuplot = find_gnuplot();
  if (gnuplot.empty())
    throw usage_error("gnuplot not found on PATH: the report's charts are drawn by gnuplot; install it (Debian/Ubuntu: "
                      "apt-get install gnuplot-nox)");
  const std::size_t batch = charts.boxes.size() + charts.speedups.size() + charts.heatmaps.size();
  std::size_t total = batch > 0 ? 1 : 0, done = 0;
  for (const auto& pp : plans)
    for (const auto& ch : pp.chapters) total += ch.roofline ? 1 : 0;
  const auto step = [&](const std::string& what) {
    if (progress) progress(done++, total, what);
  };
  const detail::private_dir scratch;
  if (batch > 0) {
    step(fmt::format("{} speedup charts, {} heatmaps, {} box plots", charts.speedups.size(), charts.heatmaps.size(),
                     charts.boxes.size()));
    const std::vector<std::string> svgs =
        detail::render_gnuplot_jobs({detail::speedup_charts_gnuplot(charts.speedups, scratch.path(), "speedups.dat"),
                                     detail::tuning_heatmaps_gnuplot(charts.heatmaps, scratch.path(), "heatmaps.dat"),
                                     [&] {
                                       const detail::box_plot_files f =
                                           detail::box_plots_gnuplot(charts.boxes, scratch.path(),
                                                                     scratch.path() / "boxes.dat");
                                       detail::gnuplot_job j{f.script, "boxes.dat", f.data, {}};
                                       for (std::size_t i = 0; i < charts.boxes.size(); ++i)
                                         j.outputs.push_back("box" + std::to_string(i) + ".svg");
                                       return j;
                                     }()},
                                    gnuplot, scratch.path());
    const std::size_t heatmaps_at = charts.speedups.size(), boxes_at = heatmaps_at + charts.heatmaps.size();
    const auto fill = [&](chart_slot& slot, std::size_t offset, const std::string& prefix, const std::string& title,
                          const char* css) {
      if (!slot.index) return;
      const std::string& svg = svgs[offset + *slot.index];
      slot.width = detail::svg_view_width(svg);
      slot.svg = detail::inline_svg(svg, prefix + std::to_string(*slot.index) + "-", title, css);
    };
    for (auto& pp : plans)
      for (auto& ch : pp.chapters)
        for (auto& pr : ch.pairs) {
          fill(pr.speedup, 0, pp.anchor + "-s", pr.id + ": each variant's speedup over the baseline, per size",
               "speedup");
          fill(pr.heatmap, heatmaps_at, pp.anchor + "-h", pr.id + ": each configuration's median time, per size",
               "heatmap");
          fill(pr.box, boxes_at, pp.anchor + "-b", pr.id + ": each variant's samples as % deviation from its median",
               "boxplot");
        }
  }
  render_options o;
  o.width = detail::kPageContentWidth;
  for (auto& pp : plans)
    for (auto& ch : pp.chapters) {
      if (!ch.roofline) continue;
      step(fmt::format("the roofline of chapter {} in {}", ch.number, pp.in->source));
      const fs::path out = scratch.path() / fmt::format("roofline-{}-{}.svg", pp.anchor, ch.number);
      const render_result r = render_roofline(*ch.roofline, out, o);
      if (!r.image_written) throw runtime_error("the roofline of chapter " + std::to_string(ch.number) + ": " + r.message);
      ch.svg = detail::inline_svg(slurp(out), fmt::format("{}-rf{}-", pp.anchor, ch.number), ch.roofline->title, "roofline");
    }
  if (progress) progress(total, total, "done");
}

// ---------------------------------------------------------------------------------- the page

std::string chapter_title(const report_input& in, int number) {
  const auto it = in.chapters.find(number);
  return it == in.chapters.end() ? std::string() : it->second;
}

// Each compared record's median in the base, its --history runs and the new run, in the order the
// runs started (ISO 8601 UTC sorts as text; a run without a start keeps its place).
std::map<std::string, detail::compared_series> trends_of(const report_input& in) {
  std::map<std::string, detail::compared_series> out;
  if (!in.compare || in.trend_runs.empty()) return out;
  std::vector<const profile*> runs;
  for (const report_profile& r : in.trend_runs) runs.push_back(&r.prof);
  const profile* fresh = &in.profiles[0].prof;
  runs.push_back(fresh);
  std::stable_sort(runs.begin(), runs.end(), [](const profile* a, const profile* b) {
    return !a->prov.started_at.empty() && !b->prov.started_at.empty() && a->prov.started_at < b->prov.started_at;
  });
  std::vector<std::map<std::string, double>> medians(runs.size());
  for (std::size_t k = 0; k < runs.size(); ++k)
    for (const record& r : runs[k]->records)
      if (r.status == record_status::passed && r.stats && r.stats->median > 0) medians[k][r.id()] = r.stats->median;
  const auto new_run = static_cast<std::size_t>(std::find(runs.begin(), runs.end(), fresh) - runs.begin());
  for (const record_comparison& c : in.compare->records) {
    detail::compared_series t;
    t.new_run = new_run;
    for (const auto& m : medians) {
      const auto it = m.find(c.id);
      t.medians.push_back(it == m.end() ? std::nan("") : it->second);
    }
    out[c.id] = std::move(t);
  }
  return out;
}

std::vector<detail::glance_chapter> glance_of(const report_input& in, const profile_plan& pp,
                                              const std::optional<int>& only = std::nullopt) {
  std::vector<detail::glance_chapter> out;
  for (const chapter_plan& ch : pp.chapters) {
    if (only && ch.number != *only) continue;
    detail::glance_chapter g{ch.number, chapter_title(in, ch.number), ch.anchor, {}};
    for (const pair_plan& pr : ch.pairs) g.pairs.push_back({pr.name, pr.anchor, &pr.speedups});
    out.push_back(std::move(g));
  }
  return out;
}

// The first screen: a card per chapter of every profile, two columns of them on a wide page (the
// page's table of contents as well); with several profiles each card names its own.
std::string glance_section(const report_input& in, const std::vector<profile_plan>& plans) {
  std::string out = fmt::format(
      "<section class=\"summary\" id=\"summary\">\n<p class=\"lead\">Per pair, the variant with the largest speedup "
      "over the baseline at the pair's largest size, with a {:.0f}% interval; grey band: <em>same</em> within "
      "±{:.3g}%, colour only "
      "outside it. <em>of roof</em>: the variant's share of the roof that bounds it (▲ above it).{}</p>\n",
      100 * kConfidence, 100 * same_band(in), in.compare ? " <a href=\"#compare\">Compared with the base ↓</a>" : "");
  std::vector<detail::glance_chapter> cards;
  // The page's header names the GPU; a card names it too only when the profiles' GPUs differ.
  const bool one_gpu = std::all_of(plans.begin(), plans.end(), [&](const profile_plan& pp) {
    return pp.in->prof.prov.device.name == plans.front().in->prof.prov.device.name;
  });
  for (const profile_plan& pp : plans)
    for (detail::glance_chapter& g : glance_of(in, pp)) {
      if (plans.size() > 1)
        g.profile = fs::path(pp.in->source).filename().string() +
                    (one_gpu ? std::string()
                             : " · " + (pp.in->prof.prov.device.name.empty() ? std::string("unknown GPU")
                                                                             : pp.in->prof.prov.device.name));
      cards.push_back(std::move(g));
    }
  return out + detail::html_glance(cards, same_band(in)) + "</section>\n";
}

// A point's source as text, whether the roofline names it with a string or an enum with to_string
// (one of the two overloads is then unused).
[[maybe_unused]] std::string source_name(const std::string& s) { return s; }
template <class E>
std::string source_name(const E& e) {
  return to_string(e);
}

// What placed the points: the work model, hardware counters, or both (counters where a record has them).
std::string placement(const roofline_model& m) {
  bool counted = false, modelled = false;
  for (const roof_point& p : m.points) {
    const std::string s = source_name(p.source);
    (s.find("count") != std::string::npos ? counted : modelled) = true;
  }
  const char* model = "the work model (declared FLOPs ÷ declared DRAM bytes)";
  if (counted && modelled) return std::string("hardware counters where the record has them, else ") + model;
  return counted ? "hardware counters (counted FLOPs ÷ counted DRAM bytes)" : model;
}

std::string roofline_figure(const chapter_plan& ch) {
  if (!ch.roofline) return "<p class=\"missing\">No roofline for this chapter: " + h(ch.no_roofline) + "</p>\n";
  const roofline_model& m = *ch.roofline;
  std::string out =
      "<figure class=\"roofline\">\n" + ch.svg + "\n<figcaption>Roofline of chapter " + std::to_string(ch.number) +
      ": each variant at its arithmetic intensity and achieved FLOP/s, placed "
      "from " +
      h(placement(m)) + ", under the " + h(m.ceilings_source) +
      " ceilings; every roof a point is judged against is drawn and labelled; an arrow runs from each size's "
      "baseline to its fastest variant; an amber ring marks a point above its roof.";
  if (ch.tuning_left_out > 0)
    out += fmt::format(" Of a tuning grid only each size's default and best configuration are placed ({} more in the "
                       "heatmap below).",
                       ch.tuning_left_out);
  out += "</figcaption>\n</figure>\n";
  if (!m.skipped.empty()) {
    out += fmt::format("<details><summary>{} record{} not on the roofline</summary><ul class=\"ids\">\n", m.skipped.size(),
                       m.skipped.size() == 1 ? "" : "s");
    for (const auto& s : m.skipped) out += "<li>" + h(s) + "</li>\n";
    out += "</ul></details>\n";
  }
  return out;
}

// A chart drawn at its own size at most: scaled up to the page's width, its text would dwarf the
// tables'; it is never drawn wider than the page, so it is never scaled down either.
std::string figure(const chart_slot& c, const char* css, const std::string& caption) {
  return fmt::format("<figure class=\"{}\" style=\"max-width: {:.0f}px\">\n", css, c.width) + c.svg + "\n<figcaption>" +
         caption + "</figcaption>\n</figure>\n";
}

// "Best at n=8192: cublas, 9.58× faster [9.41, 9.75] than naive · 51.8 TFLOP/s · 78.2% of fp32"
std::string pair_headline(const pair_plan& pr) {
  if (!pr.speedups.headline) return "";
  const detail::size_speedups& s = pr.speedups.sizes[*pr.speedups.headline];
  const detail::variant_speedup* best = nullptr;
  for (const detail::variant_speedup& v : s.variants)
    if (v.speedup && (best == nullptr || v.speedup->estimate > best->speedup->estimate)) best = &v;
  if (best == nullptr) return "";
  const record& r = *best->rec;
  std::string out = "<p class=\"headline\">" + std::string(s.label.empty() ? "Fastest" : "Fastest at " + h(s.label)) +
                    ": <strong>" + h(r.variant) + "</strong>, " + detail::html_speedup(*best, true) + " than " +
                    h(s.baseline->variant);
  if (r.declared.flops > 0 && r.flops_per_s > 0) out += " · " + h(format_si(r.flops_per_s, "FLOP/s"));
  else if (r.declared.bytes > 0 && r.bytes_per_s > 0) out += " · " + h(format_si(r.bytes_per_s, "B/s"));
  if (r.floor) out += " · " + detail::html_roof_share(r) + " of its roof";
  return out + "</p>\n";
}

double noise_target(const profile& p) {
  const auto it = p.options.find("max_noise");
  return it != p.options.end() && it->is_number() && it->get<double>() > 0 ? it->get<double>()
                                                                           : stopping_criteria{}.max_noise;
}

std::string pair_section(const report_input& in, const profile_plan& pp, const pair_plan& pr,
                         const std::map<std::string, const record_comparison*>& verdicts) {
  const auto notes = in.pairs.find(pr.id);
  const pair_notes* n = notes == in.pairs.end() ? nullptr : &notes->second;
  std::string out = fmt::format("<section class=\"pair\" id=\"{}\" data-pair=\"{}\">\n<h4><code>{}</code>{}</h4>\n",
                                pr.anchor, h(pr.id), h(pr.id),
                                n && !n->title.empty() ? " <span class=\"title\">— " + h(n->title) + "</span>" : "");
  out += n && !n->explanation.empty()
             ? "<p class=\"explanation\">" + h(n->explanation) + "</p>\n"
             : "<p class=\"missing\">This gpubench does not know this pair, so there is no explanation.</p>\n";
  out += pair_headline(pr);
  if (!pr.speedup.svg.empty())
    out += figure(
        pr.speedup, "speedup",
        fmt::format("Each variant's speedup over the baseline, per size, on a log scale, with its {:.0f}% interval. "
                    "Grey band: <em>same</em>; a filled marker lies wholly outside it.",
                    100 * kConfidence));
  if (!pr.heatmap.svg.empty())
    out +=
        figure(pr.heatmap, "heatmap",
               "Each configuration's median time, coloured by its ratio to the size's best (light: fast, dark: slow); "
               "thick outline: the best, dashed: the pair's default.");
  out += detail::html_counters(pr.records, pr.speedups);
  detail::record_table_context cx;
  cx.notes = n;
  cx.speedups = &pr.speedups;
  cx.verdicts = &verdicts;
  cx.noise_target = noise_target(pp.in->prof);
  cx.fastest_first = pr.tuning;
  const std::string table = detail::html_record_table(pr.records, pr.row_ids, cx);
  if (pr.tuning)
    out += fmt::format(
        "<details class=\"table\"><summary>All {} configurations, fastest first per size</summary>\n{}</details>\n",
        pr.records.size(), table);
  else out += table;
  if (!pr.box.svg.empty())
    out += "<details class=\"spread\"><summary>Spread of the samples (box plot)</summary>\n" +
           figure(pr.box, "boxplot",
                  "Each variant's samples as % deviation from its own median (the medians are in the table). Box: "
                  "quartiles; whiskers: the furthest sample within 1.5 box lengths; circles: beyond; n ↑ or ↓: samples "
                  "off the chart.") +
           "</details>\n";
  return out + "</section>\n";
}

std::string profile_section(const report_input& in, const profile_plan& pp,
                            const std::map<std::string, const record_comparison*>& verdicts) {
  const profile& p = pp.in->prof;
  std::string out = fmt::format("<section class=\"profile\" id=\"{}\" data-source=\"{}\">\n<h2><code>{}</code> — {}</h2>\n",
                                pp.anchor, h(pp.in->source), h(pp.in->source),
                                h(p.prov.device.name.empty() ? "unknown GPU" : p.prov.device.name));
  if (!p.complete)
    out += "<p class=\"warning\">⚠ This profile is marked incomplete: the run was interrupted, and what it did not reach "
           "is missing below.</p>\n";
  out += detail::html_device(p);
  for (const chapter_plan& ch : pp.chapters) {
    const std::string title = chapter_title(in, ch.number);
    out += fmt::format("<section class=\"chapter\" id=\"{}\" data-chapter=\"{}\">\n<h3>Chapter {}{}</h3>\n", ch.anchor,
                       ch.number, ch.number, title.empty() ? "" : " <span class=\"title\">— " + h(title) + "</span>");
    out += detail::html_glance(glance_of(in, pp, ch.number), same_band(in), false);
    out += roofline_figure(ch);
    for (const pair_plan& pr : ch.pairs) out += pair_section(in, pp, pr, verdicts);
    out += "</section>\n";
  }
  return out + "</section>\n";
}

}  // namespace

std::string html_report(const report_input& in, const report_progress& progress) {
  if (in.profiles.empty()) throw usage_error("report: no profile given");
  chart_lists charts;
  std::vector<profile_plan> plans = plan(in, charts);
  draw(plans, charts, progress);

  // Verdicts (base → the first profile) beside that profile's records, and links back to them.
  std::map<std::string, const record_comparison*> verdicts;
  std::map<std::string, std::string> anchors;
  if (in.compare) {
    for (const auto& r : in.compare->records) verdicts[r.id] = &r;
    for (const auto& ch : plans[0].chapters)
      for (const auto& pr : ch.pairs)
        for (std::size_t k = 0; k < pr.records.size(); ++k) anchors.emplace(pr.records[k]->id(), pr.row_ids[k]);
  }

  std::set<std::string> devices;
  for (const auto& p : in.profiles) devices.insert(p.prof.prov.device.name.empty() ? "unknown GPU" : p.prof.prov.device.name);
  std::string device_list;
  for (const auto& d : devices) device_list += (device_list.empty() ? "" : ", ") + d;

  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n";
  page += "<title>gpubench report — " + h(device_list) + "</title>\n<style>" + detail::kReportCss + "</style>\n</head>\n<body>\n";
  std::string sources;
  for (const auto& p : in.profiles) sources += (sources.empty() ? "" : ", ") + fs::path(p.source).filename().string();
  page += fmt::format(
      "<header class=\"page\"><div><h1>gpubench report</h1><p>{} · <code>{}</code>{}</p></div></header>\n<main>\n",
      h(device_list), h(sources), in.compare ? " · compared with <code>" + h(in.compare->base_source) + "</code>" : "");
  page += glance_section(in, plans);
  if (in.compare) {
    const std::map<std::string, detail::compared_series> trends = trends_of(in);
    page += detail::html_compare(
        *in.compare,
        [&](const std::string& id) {
          const auto it = anchors.find(id);
          return it == anchors.end() ? std::string() : it->second;
        },
        &trends);
  }
  page += detail::html_trends(in.trends, in.compare.has_value());
  for (std::size_t i = 0; i < plans.size(); ++i)
    page += profile_section(in, plans[i], i == 0 ? verdicts : std::map<std::string, const record_comparison*>{});
  page += "<footer>Written by " + h(in.generator.empty() ? "gpubench" : in.generator) + " at " + h(now_utc_iso8601()) +
          ". Charts drawn by gnuplot. This page is one file: it loads nothing from anywhere and runs no script.</footer>\n";
  return page + "</main>\n</body>\n</html>\n";
}

}  // namespace gpubench
