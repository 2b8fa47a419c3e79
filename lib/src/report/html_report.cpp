// The HTML report: plan every section first (which records, which charts), draw every chart
// (the box plots in one gnuplot process, each chapter's roofline through render_roofline), then
// write the page around them. Nothing in the page refers outside it: the style is inline, the
// charts are inline SVG, there is no script, and a Content-Security-Policy of default-src 'none'
// makes a browser refuse any load that would slip in (the browser test treats one as a failure).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "gpubench/report.hpp"
#include "gpubench/roofline.hpp"
#include "report/box_plot.hpp"
#include "report/html_escape.hpp"
#include "report/html_parts.hpp"
#include "report/html_trend.hpp"
#include "report/svg_inline.hpp"
#include "process/gnuplot_process.hpp"

namespace gpubench {

namespace fs = std::filesystem;

namespace {

using detail::html_escape;
using detail::html_id;

std::string h(std::string_view s) { return html_escape(s); }

struct pair_plan {
  std::string id;    ///< "ch01/batched_gemm"
  std::string name;  ///< "batched_gemm"
  std::vector<const record*> records;
  std::vector<std::string> row_ids;
  std::optional<std::size_t> chart;  ///< index into the box charts
  std::string svg;
  double width = 0;  ///< the chart's own width, CSS pixels
};

struct chapter_plan {
  int number = 0;
  std::vector<pair_plan> pairs;
  std::optional<roofline_model> roofline;
  std::string no_roofline;  ///< why there is none (build_roofline's message)
  std::string svg;
};

struct profile_plan {
  const report_profile* in = nullptr;
  std::string anchor;  ///< "p1"
  std::vector<chapter_plan> chapters;
};

// The size axes that vary within a pair ("m=8192" says more than "batch=40,m=8192,n=256,k=256");
// the whole size when none varies.
std::vector<std::string> size_labels(const std::vector<const record*>& records, std::vector<std::string>& sizes) {
  std::map<std::string, std::set<std::string>> values;
  for (const record* r : records) {
    const std::string s = r->size.to_string();
    if (std::find(sizes.begin(), sizes.end(), s) == sizes.end()) sizes.push_back(s);
    for (const auto& [name, v] : r->size.entries()) values[name].insert(to_string(v));
  }
  std::vector<std::string> labels;
  for (const std::string& s : sizes) {
    const record* r = *std::find_if(records.begin(), records.end(), [&](const record* x) { return x->size.to_string() == s; });
    std::string label;
    for (const auto& [name, v] : r->size.entries())
      if (values[name].size() > 1) label += (label.empty() ? "" : ",") + name + "=" + to_string(v);
    labels.push_back(label.empty() ? s : label);
  }
  return labels;
}

std::optional<detail::box_chart> box_chart_of(const std::vector<const record*>& records) {
  detail::box_chart c;
  std::vector<std::string> sizes;
  c.groups = size_labels(records, sizes);
  for (const record* r : records) {
    // Only positive, finite times have a deviation from a median (the reader admits no others;
    // this keeps a profile built in code from drawing nonsense).
    std::vector<double> samples;
    for (double s : r->timing.samples_s)
      if (std::isfinite(s) && s > 0) samples.push_back(s);
    if (r->status != record_status::passed || samples.empty()) continue;
    auto series = std::find(c.series.begin(), c.series.end(), r->variant);
    if (series == c.series.end()) series = c.series.insert(c.series.end(), r->variant);
    const auto group = std::find(sizes.begin(), sizes.end(), r->size.to_string());
    c.boxes.push_back({static_cast<std::size_t>(group - sizes.begin()), static_cast<std::size_t>(series - c.series.begin()),
                       std::move(samples)});
  }
  if (c.boxes.empty()) return std::nullopt;
  return c;
}

std::vector<profile_plan> plan(const report_input& in, std::vector<detail::box_chart>& charts) {
  std::vector<profile_plan> plans;
  for (std::size_t i = 0; i < in.profiles.size(); ++i) {
    const report_profile& src = in.profiles[i];
    profile_plan pp{&src, "p" + std::to_string(i + 1), {}};
    for (std::size_t k = 0; k < src.prof.records.size(); ++k) {
      const record& r = src.prof.records[k];
      auto ch = std::find_if(pp.chapters.begin(), pp.chapters.end(), [&](const chapter_plan& c) { return c.number == r.chapter; });
      if (ch == pp.chapters.end()) ch = pp.chapters.insert(pp.chapters.end(), chapter_plan{r.chapter, {}, {}, {}, {}});
      const std::string id = fmt::format("ch{:02d}/{}", r.chapter, r.pair);
      auto pr = std::find_if(ch->pairs.begin(), ch->pairs.end(), [&](const pair_plan& p) { return p.id == id; });
      if (pr == ch->pairs.end()) pr = ch->pairs.insert(ch->pairs.end(), pair_plan{id, r.pair, {}, {}, {}, {}});
      pr->records.push_back(&r);
      pr->row_ids.push_back(pp.anchor + "-r" + std::to_string(k + 1));
    }
    std::stable_sort(pp.chapters.begin(), pp.chapters.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
    for (chapter_plan& ch : pp.chapters) {
      for (pair_plan& pr : ch.pairs)
        if (auto c = box_chart_of(pr.records)) {
          pr.chart = charts.size();
          charts.push_back(std::move(*c));
        }
      // The chapter's own roofline: its records only, under the profile's ceilings.
      profile sub;
      sub.prov = src.prof.prov;
      sub.ceil = src.prof.ceil;
      sub.complete = src.prof.complete;
      for (const record& r : src.prof.records)
        if (r.chapter == ch.number) sub.records.push_back(r);
      try {
        ch.roofline = build_roofline({sub}, {src.source});
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

void draw(std::vector<profile_plan>& plans, const std::vector<detail::box_chart>& charts, const report_progress& progress) {
  const fs::path gnuplot = find_gnuplot();
  if (gnuplot.empty())
    throw usage_error("gnuplot not found on PATH: the report's charts are drawn by gnuplot; install it (Debian/Ubuntu: "
                      "apt-get install gnuplot-nox)");
  std::size_t total = charts.empty() ? 0 : 1, done = 0;
  for (const auto& pp : plans)
    for (const auto& ch : pp.chapters) total += ch.roofline ? 1 : 0;
  const auto step = [&](const std::string& what) {
    if (progress) progress(done++, total, what);
  };
  const detail::private_dir scratch;
  if (!charts.empty()) {
    step(fmt::format("{} box plots", charts.size()));
    const std::vector<std::string> svgs = detail::render_box_plots(charts, gnuplot, scratch.path());
    for (auto& pp : plans)
      for (auto& ch : pp.chapters)
        for (auto& pr : ch.pairs)
          if (pr.chart) {
            pr.width = detail::svg_view_width(svgs[*pr.chart]);
            pr.svg = detail::inline_svg(svgs[*pr.chart], pp.anchor + "-b" + std::to_string(*pr.chart) + "-",
                                        pr.id + ": each variant's samples as % deviation from its median", "boxplot");
          }
  }
  for (auto& pp : plans)
    for (auto& ch : pp.chapters) {
      if (!ch.roofline) continue;
      step(fmt::format("the roofline of chapter {} in {}", ch.number, pp.in->source));
      const fs::path out = scratch.path() / fmt::format("roofline-{}-{}.svg", pp.anchor, ch.number);
      const render_result r = render_roofline(*ch.roofline, out);
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

std::string toc(const report_input& in, const std::vector<profile_plan>& plans) {
  std::string out = "<nav class=\"toc\"><strong>Contents</strong>\n<ul>\n";
  if (in.compare) out += "<li><a href=\"#compare\">Compared with the base</a></li>\n";
  if (!in.trends.empty()) out += "<li><a href=\"#trends\">Trends from the run store</a></li>\n";
  for (const auto& pp : plans) {
    out += fmt::format("<li><a href=\"#{}\"><code>{}</code></a> — {}\n<ul>\n", pp.anchor, h(pp.in->source),
                       h(pp.in->prof.prov.device.name));
    for (const auto& ch : pp.chapters) {
      out += fmt::format("<li><a href=\"#{}-ch{:02d}\">Chapter {}</a>", pp.anchor, ch.number, ch.number);
      const std::string title = chapter_title(in, ch.number);
      if (!title.empty()) out += " " + h(title);
      out += ":";
      for (std::size_t i = 0; i < ch.pairs.size(); ++i)
        out += fmt::format("{} <a href=\"#{}-ch{:02d}-{}\">{}</a>", i ? "," : "", pp.anchor, ch.number, html_id(ch.pairs[i].name),
                           h(ch.pairs[i].name));
      out += "</li>\n";
    }
    out += "</ul></li>\n";
  }
  return out + "</ul></nav>\n";
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
  std::string out = "<figure class=\"roofline\">\n" + ch.svg + "\n<figcaption>Roofline of chapter " +
                    std::to_string(ch.number) + ": each variant at its arithmetic intensity and achieved FLOP/s, placed "
                    "from " + h(placement(m)) + ", under the " + h(m.ceilings_source) +
                    " ceilings; arrows run from each size's baseline to its variants.</figcaption>\n</figure>\n";
  if (!m.skipped.empty()) {
    out += fmt::format("<details><summary>{} record{} not on the roofline</summary><ul class=\"ids\">\n", m.skipped.size(),
                       m.skipped.size() == 1 ? "" : "s");
    for (const auto& s : m.skipped) out += "<li>" + h(s) + "</li>\n";
    out += "</ul></details>\n";
  }
  return out;
}

std::string pair_section(const report_input& in, const profile_plan& pp, const chapter_plan& ch, const pair_plan& pr,
                         const std::map<std::string, const record_comparison*>& verdicts) {
  const auto notes = in.pairs.find(pr.id);
  const pair_notes* n = notes == in.pairs.end() ? nullptr : &notes->second;
  std::string out = fmt::format("<section class=\"pair\" id=\"{}-ch{:02d}-{}\" data-pair=\"{}\">\n<h4><code>{}</code>{}</h4>\n",
                                pp.anchor, ch.number, html_id(pr.name), h(pr.id), h(pr.id),
                                n && !n->title.empty() ? " <span class=\"title\">— " + h(n->title) + "</span>" : "");
  out += n && !n->explanation.empty()
             ? "<p class=\"explanation\">" + h(n->explanation) + "</p>\n"
             : "<p class=\"missing\">This gpubench does not know this pair, so there is no explanation.</p>\n";
  out += detail::html_record_table(pr.records, pr.row_ids, n, verdicts);
  // A box plot is drawn at its own size at most: scaled up to the page's width, its text would
  // dwarf the table's.
  if (pr.chart)
    out += fmt::format("<figure class=\"boxplot\" style=\"max-width: {:.0f}px\">\n", pr.width) + pr.svg +
           "\n<figcaption>Each variant's samples as % deviation from its own median (the medians are in the table). "
           "Box: quartiles; whiskers: the furthest sample within 1.5 box lengths; circles: beyond; n ↑ or ↓: samples "
           "off the chart.</figcaption>\n</figure>\n";
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
    out += fmt::format("<section class=\"chapter\" id=\"{}-ch{:02d}\" data-chapter=\"{}\">\n<h3>Chapter {}{}</h3>\n", pp.anchor,
                       ch.number, ch.number, ch.number, title.empty() ? "" : " <span class=\"title\">— " + h(title) + "</span>");
    out += roofline_figure(ch);
    for (const pair_plan& pr : ch.pairs) out += pair_section(in, pp, ch, pr, verdicts);
    out += "</section>\n";
  }
  return out + "</section>\n";
}

}  // namespace

std::string html_report(const report_input& in, const report_progress& progress) {
  if (in.profiles.empty()) throw usage_error("report: no profile given");
  std::vector<detail::box_chart> charts;
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
  page += fmt::format("<header class=\"page\"><div><h1>gpubench report</h1><p>{} profile{} · {}{}</p></div></header>\n<main>\n",
                      in.profiles.size(), in.profiles.size() == 1 ? "" : "s", h(device_list),
                      in.compare ? " · compared with " + h(in.compare->base_source) : "");
  page += toc(in, plans);
  if (in.compare)
    page += detail::html_compare(*in.compare, [&](const std::string& id) {
      const auto it = anchors.find(id);
      return it == anchors.end() ? std::string() : it->second;
    });
  page += detail::html_trends(in.trends, in.compare.has_value());
  for (std::size_t i = 0; i < plans.size(); ++i)
    page += profile_section(in, plans[i], i == 0 ? verdicts : std::map<std::string, const record_comparison*>{});
  page += "<footer>Written by " + h(in.generator.empty() ? "gpubench" : in.generator) + " at " + h(now_utc_iso8601()) +
          ". Charts drawn by gnuplot. This page is one file: it loads nothing from anywhere and runs no script.</footer>\n";
  return page + "</main>\n</body>\n</html>\n";
}

}  // namespace gpubench
