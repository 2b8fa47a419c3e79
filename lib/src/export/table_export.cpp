/// Tables: CSV for spreadsheets and scripts (every record, full precision, SI base units) and
/// markdown for people (a table per pair, numbers formatted as the console shows them).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpubench/escape.hpp"  // csv_field: RFC 4180 quoting, and no formula
#include "gpubench/export.hpp"
#include "gpubench/format.hpp"
#include "export/markdown_text.hpp"

namespace gpubench {
namespace {

// ---------------------------------------------------------------------------------- CSV

/// Shortest text that reads back to the same double; empty when not finite (no value).
std::string csv_number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string(); }
std::string csv_number(const std::optional<double>& v) { return v ? csv_number(*v) : std::string(); }

constexpr const char* kCsvColumns[] = {
    "id",       "chapter",   "pair",      "variant",      "size",        "status",      "reason",
    "samples",  "median_s",  "min_s",     "max_s",        "mean_s",      "stdev_s",     "q1_s",
    "q3_s",     "p95_s",     "p99_s",     "mad_s",        "rel_noise",   "bytes_per_s", "flops_per_s",
    "s_per_item", "floor_s", "floor_bound", "floor_fraction", "floor_suspect", "speedup"};

// ---------------------------------------------------------------------------------- markdown

using detail::md_cell;

std::string md_throughput(const record& r) {
  std::string t;
  if (r.declared.flops > 0) t += format_si(r.flops_per_s, "FLOP/s");
  if (r.declared.bytes > 0) t += (t.empty() ? "" : " · ") + format_si(r.bytes_per_s, "B/s");
  return t.empty() ? "—" : t;
}

std::string md_row(const record& r) {
  const bool timed = r.status == record_status::passed && r.stats;
  std::string median = "—", throughput = "—", floor = "—", speedup = "—";
  if (timed) {
    median = format_duration(r.stats->median);
    if (std::isfinite(r.stats->rel_noise)) median += " ± " + format_percent(r.stats->rel_noise);
    throughput = md_throughput(r);
    if (r.floor)
      floor = format_percent(r.floor->fraction) + " (" + md_cell(r.floor->bound) + ")" +
              (r.floor->suspect        ? " ⚠ suspect"
               : r.floor->above_roof() ? " ▲"
                                       : "");
    if (r.speedup) speedup = format_factor(*r.speedup);
  }
  std::string status = to_string(r.status);
  if (!r.reason.empty()) status += ": " + r.reason;
  return fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", md_cell(r.variant), md_cell(r.size.to_string()),
                     median, throughput, floor, speedup, md_cell(status));
}

}  // namespace

std::string export_csv(const profile& p) {
  // RFC 4180 ends every line with CRLF; spreadsheets and CSV readers take either.
  std::string out;
  for (const char* column : kCsvColumns) out += (out.empty() ? "" : ",") + std::string(column);
  out += "\r\n";
  for (const record& r : p.records) {
    std::vector<std::string> f;
    f.push_back(csv_field(r.id()));
    f.push_back(std::to_string(r.chapter));
    f.push_back(csv_field(r.pair));
    f.push_back(csv_field(r.variant));
    f.push_back(csv_field(r.size.to_string()));
    f.push_back(to_string(r.status));
    f.push_back(csv_field(r.reason));
    f.push_back(std::to_string(r.timing.samples_s.size()));
    if (r.stats) {
      const summary& s = *r.stats;
      for (const double v : {s.median, s.min, s.max, s.mean, s.stdev, s.q1, s.q3, s.p95, s.p99, s.mad, s.rel_noise})
        f.push_back(csv_number(v));
      f.push_back(csv_number(r.bytes_per_s));
      f.push_back(csv_number(r.flops_per_s));
      f.push_back(csv_number(r.s_per_item));
    } else {
      f.insert(f.end(), 14, "");  // not timed: no statistics, no throughput
    }
    if (r.floor) {
      f.push_back(csv_number(r.floor->time_s));
      f.push_back(csv_field(r.floor->bound));
      f.push_back(csv_number(r.floor->fraction));
      f.push_back(r.floor->suspect ? "true" : "false");
    } else {
      f.insert(f.end(), 4, "");
    }
    f.push_back(csv_number(r.speedup));
    std::string line;
    for (std::size_t i = 0; i < f.size(); ++i) line += (i ? "," : "") + f[i];
    out += line + "\r\n";
  }
  return out;
}

std::string export_markdown(const profile& p) {
  const device_info& d = p.prov.device;
  std::string out = fmt::format("## gpubench results — {}\n\n", md_cell(d.name.empty() ? "unknown GPU" : d.name));
  out += fmt::format("gpubench {}{} · {} · started {}{}\n", md_cell(p.prov.gpubench_version),
                     p.prov.git_sha.empty() ? "" : " (" + md_cell(p.prov.git_sha) + ")", md_cell(p.prov.hostname),
                     md_cell(p.prov.started_at), p.complete ? "" : " · **incomplete run**");

  // Pairs in order of first appearance; each pair's records in profile order.
  std::vector<std::pair<std::string, std::vector<const record*>>> pairs;
  for (const record& r : p.records) {
    const std::string key = fmt::format("ch{:02d}/{}", r.chapter, r.pair);
    auto it = pairs.begin();
    while (it != pairs.end() && it->first != key) ++it;
    if (it == pairs.end()) it = pairs.insert(pairs.end(), {key, {}});
    it->second.push_back(&r);
  }
  if (pairs.empty()) out += "\nNo records.\n";
  for (const auto& [key, records] : pairs) {
    out += fmt::format("\n### {}\n\n", md_cell(key));
    out += "| variant | size | median ± noise | throughput | % of floor | speedup | status |\n";
    out += "|---|---|--:|--:|--:|--:|---|\n";
    for (const record* r : records) out += md_row(*r);
  }
  // What a fraction above 100% means, once per roof it happened against.
  std::vector<std::string> above;
  for (const record& r : p.records)
    if (r.status == record_status::passed && r.floor && r.floor->above_roof() && !r.floor->suspect &&
        std::find(above.begin(), above.end(), r.floor->bound) == above.end())
      above.push_back(r.floor->bound);
  for (const std::string& roof : above) out += "\n▲ " + md_cell(above_roof_reason(roof)) + "\n";
  return out;
}

}  // namespace gpubench
