// A pair's hardware counters up front, as Nsight Compute's "GPU Speed Of Light" section shows
// them: SM and memory throughput as % of their peaks, drawn as bars; the DRAM and L2 bytes the
// counters saw against the bytes the work model declares; and the FLOP/s the work model gives
// beside the FLOP/s the counted FLOPs give (the roofline places points by the latter), with why
// they differ when they do (docs/counters.md, "Counters against the work model").
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpubench/format.hpp"
#include "report/html_escape.hpp"
#include "report/html_parts.hpp"

namespace gpubench::detail {

namespace {

std::string h(std::string_view s) { return html_escape(s); }

double derived(const record& r, const char* key) {
  const auto it = r.metrics->derived.find(key);
  return it != r.metrics->derived.end() && std::isfinite(it->second) && it->second >= 0 ? it->second : -1;
}

std::string bar(double pct) {
  if (pct < 0) return "<td class=\"sol\">—</td>";
  return fmt::format(
      "<td class=\"sol\"><span class=\"solbar\"><span style=\"width:{:.1f}%\"></span></span> {:.0f}%</td>",
      std::clamp(pct, 0.0, 100.0), pct);
}

// Why the counted FLOPs exceed the modelled ones. One sentence for every record it applies to: a
// table that repeats it per row buries the numbers.
constexpr const char* kFlopsAbove =
    "FLOPs counted above the model: the counters count every FP add, mul and FMA executed, including the "
    "instructions that exp, erf, tanh and divisions expand into and any extra work; the model counts the math as "
    "written. The roofline places points by the counted FLOPs.";

// The table's footnotes: each distinct reason once, numbered in order of first use.
struct footnotes {
  std::vector<std::string> texts;
  std::string mark(const std::string& text) {
    auto it = std::find(texts.begin(), texts.end(), text);
    if (it == texts.end()) it = texts.insert(texts.end(), text);
    return fmt::format("<sup>{}</sup>", it - texts.begin() + 1);
  }
};

}  // namespace

std::string html_counters(const std::vector<const record*>& records, const pair_speedups& speedups) {
  std::vector<const record*> counted;
  for (const record* r : records)
    if (r->status == record_status::passed && r->stats && r->stats->median > 0 && r->metrics &&
        r->metrics->status == metrics_status::collected)
      counted.push_back(r);
  if (counted.empty()) return "";
  std::string t =
      "<table class=\"counters\"><caption>Hardware counters (<code>run --metrics</code>): throughput as % of "
      "peak, as Nsight Compute's Speed of Light shows it; bytes and FLOPs against the work model</caption>\n"
      "<thead><tr><th>size</th><th>variant</th><th>SM throughput</th><th>memory throughput</th>"
      "<th class=\"num\">DRAM bytes<br><small>counted / model</small></th>"
      "<th class=\"num\">L2 bytes<br><small>counted · hit rate</small></th>"
      "<th class=\"num\">FLOP/s<br><small>model / counted</small></th></tr></thead><tbody>\n";
  footnotes notes;
  for (const record* r : counted) {
    std::string size = r->size.to_string();
    for (const size_speedups& s : speedups.sizes)
      if (s.size == size && !s.label.empty()) size = s.label;
    t += "<tr><td class=\"size\">" + h(size) + "</td><td><strong>" + h(r->variant) + "</strong></td>";
    t += bar(derived(*r, "sm_throughput_pct")) + bar(derived(*r, "memory_throughput_pct"));
    const std::vector<work_check> checks = cross_check(r->declared, r->metrics->derived);
    const auto check = [&](const char* q) -> const work_check* {
      const auto it = std::find_if(checks.begin(), checks.end(), [&](const work_check& c) { return c.quantity == q; });
      return it == checks.end() ? nullptr : &*it;
    };
    const double dram = derived(*r, "dram_bytes"), l2 = derived(*r, "l2_bytes"), hit = derived(*r, "l2_hit_rate_pct");
    const double flops = derived(*r, "flops");
    t += "<td class=\"num\">" + (dram >= 0 ? h(format_si(dram, "B")) : std::string("—")) +
         (r->declared.path == bytes_path::dram && r->declared.bytes > 0 ? " / " + h(format_si(r->declared.bytes, "B"))
                                                                        : "");
    if (const work_check* c = check("dram_bytes"); c != nullptr && c->declared > 0) {
      t += fmt::format(" <small>{:.2g}×</small>", c->measured / c->declared);
      // Counted DRAM bytes above the model's minimum are expected (re-read tiles, extra passes);
      // below it they contradict the model, and the warning says why.
      if (c->contradicts) t += notes.mark(c->message);
    }
    t += "</td>";
    t += "<td class=\"num\">" + (l2 >= 0 ? h(format_si(l2, "B")) : std::string("—")) +
         (hit >= 0 ? fmt::format(" · {:.0f}%", hit) : "") + "</td>";
    const double median = r->stats->median;
    t += "<td class=\"num\">" +
         (r->declared.flops > 0 ? h(format_si(r->declared.flops / median, "FLOP/s")) : std::string("—")) + " / " +
         (flops > 0 ? "<strong>" + h(format_si(flops / median, "FLOP/s")) + "</strong>" : std::string("—"));
    if (const work_check* c = check("flops"); c != nullptr && c->exceeds && c->declared > 0) {
      t += fmt::format(" <small>{:.2g}×</small>", c->measured / c->declared);
      t += notes.mark(c->contradicts ? c->message : kFlopsAbove);
    }
    t += "</td></tr>\n";
  }
  t += "</tbody></table>\n";
  if (notes.texts.empty()) return t;
  t += "<ol class=\"notes\">";
  for (const std::string& n : notes.texts) t += "<li>" + h(n) + "</li>";
  return t + "</ol>\n";
}

}  // namespace gpubench::detail
