// The report's tables: what ran where (provenance, device, ceilings) and what each variant did.
// Numbers are formatted as the console formats them (gpubench/format.hpp), so a report and a
// terminal show the same figures.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "gpubench/format.hpp"
#include "report/html_escape.hpp"
#include "report/console_launch.hpp"
#include "report/html_parts.hpp"

namespace gpubench::detail {

namespace {

std::string h(std::string_view s) { return html_escape(s); }

std::string row(std::string_view name, const std::string& value_html) {
  return fmt::format("<tr><th scope=\"row\">{}</th><td>{}</td></tr>\n", h(name), value_html);
}

std::string cuda_version(int v) { return v > 0 ? fmt::format("{}.{}", v / 1000, v % 1000 / 10) : "n/a"; }

std::string ceiling_value(const std::string& unit, double v) {
  if (!(v > 0) || !std::isfinite(v)) return "—";
  return unit == "s" ? format_duration(v) : format_si(v, unit.c_str());
}

std::string provenance_table(const profile& p) {
  const provenance& v = p.prov;
  std::string t = "<table class=\"facts\"><caption>Run</caption>\n";
  t += row("gpubench", h(v.gpubench_version) + (v.git_sha.empty() ? "" : " <code>" + h(v.git_sha) + "</code>"));
  t += row("started", h(v.started_at) + (v.finished_at.empty() ? "" : " → " + h(v.finished_at)));
  if (!p.complete) t += row("complete", "<span class=\"badge warn\">no: an interrupted run</span>");
  t += row("host", h(v.hostname) + (v.os.empty() ? "" : " · " + h(v.os)));
  std::string argv;
  for (const auto& a : v.argv) argv += (argv.empty() ? "" : " ") + a;
  if (!argv.empty()) t += row("command", "<code>" + h(argv) + "</code>");
  return t + "</table>\n";
}

std::string device_table(const device_info& d) {
  std::string t = "<table class=\"facts\"><caption>Device</caption>\n";
  t += row("GPU", "<strong>" + h(d.name.empty() ? "unknown GPU" : d.name) + "</strong>");
  t += row("compute capability", fmt::format("{}.{}", d.cc_major, d.cc_minor));
  t += row("SMs", fmt::format("{} · {:.0f} MHz max", d.sm_count, d.sm_clock_max_mhz));
  t += row("memory", h(fmt::format("{} · {}-bit bus · {:.0f} MHz", format_si(static_cast<double>(d.memory_bytes), "B"),
                                   d.memory_bus_width_bits, d.memory_clock_mhz)));
  t += row("L2 cache", h(format_si(static_cast<double>(d.l2_bytes), "B")));
  if (d.pcie_gen_max && d.pcie_width_max)
    t += row("PCIe", fmt::format("gen {} x{}", *d.pcie_gen_max, *d.pcie_width_max));
  t += row("driver", h((d.driver_string.empty() ? std::string() : d.driver_string + " · ") + "CUDA " +
                       cuda_version(d.driver_version) + " (runtime " + cuda_version(d.runtime_version) + ")"));
  t += row("ECC", d.ecc_enabled ? "on" : "off");
  if (d.power_limit_w) t += row("power limit", fmt::format("{:.0f} W", *d.power_limit_w));
  return t + "</table>\n";
}

std::string ceilings_table(const ceilings& c) {
  std::string t;
  if (!c.table.empty()) {
    t += "<table class=\"ceilings\"><caption>Ceilings, measured" +
         (c.measured_at.empty() ? std::string() : " " + h(c.measured_at)) +
         " (<code>gpubench device --ceilings</code>)</caption>\n"
         "<thead><tr><th>ceiling</th><th class=\"num\">measured</th><th class=\"num\">theoretical</th>"
         "<th class=\"num\">of theor.</th><th class=\"num\">vendor library</th><th>how</th></tr></thead><tbody>\n";
    for (const ceiling& e : c.table)
      t += fmt::format("<tr><td><code>{}</code></td><td class=\"num\"><strong>{}</strong></td><td class=\"num\">{}</td>"
                       "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"method\">{}</td></tr>\n",
                       h(e.name), h(ceiling_value(e.unit, e.value)), h(ceiling_value(e.unit, e.theoretical)),
                       e.theoretical > 0 ? h(format_percent(e.value / e.theoretical)) : "—",
                       h(ceiling_value(e.unit, e.reference)), h(e.method));
    return t + "</tbody></table>\n";
  }
  t += "<table class=\"ceilings\"><caption>Ceilings, theoretical (from the device's facts; this run had no "
       "measured ones)</caption>\n<thead><tr><th>ceiling</th><th class=\"num\">value</th></tr></thead><tbody>\n";
  const std::pair<const char*, std::pair<double, const char*>> fields[] = {
      {"dram", {c.dram_bytes_per_s, "B/s"}},         {"pcie (per direction)", {c.pcie_bytes_per_s, "B/s"}},
      {"fp32", {c.fp32_flops_per_s, "FLOP/s"}},       {"fp64", {c.fp64_flops_per_s, "FLOP/s"}},
      {"tf32", {c.tf32_flops_per_s, "FLOP/s"}},       {"fp16", {c.fp16_flops_per_s, "FLOP/s"}},
      {"bf16", {c.bf16_flops_per_s, "FLOP/s"}},       {"fp8", {c.fp8_flops_per_s, "FLOP/s"}}};
  for (const auto& [name, value] : fields)
    if (value.first > 0)
      t += fmt::format("<tr><td><code>{}</code></td><td class=\"num\">{}</td></tr>\n", name,
                       h(ceiling_value(value.second, value.first)));
  return t + "</tbody></table>\n";
}

// ---------------------------------------------------------------------------------- records

std::string median_cell(const record& r) {
  const summary& s = *r.stats;
  std::string out = "<strong>" + h(format_duration(s.median)) + "</strong>";
  if (std::isfinite(s.rel_noise)) out += " ± " + h(format_percent(s.rel_noise));
  out += fmt::format("<br><small>{} … {}<br>{} samples · {}</small>", h(format_duration(s.min)), h(format_duration(s.max)),
                     s.count, h(to_string(r.timing.source)));
  return out;
}

std::string throughput_cell(const record& r) {
  std::string out;
  if (r.declared.flops > 0) out += h(format_si(r.flops_per_s, "FLOP/s"));
  if (r.declared.bytes > 0) out += (out.empty() ? "" : "<br>") + h(format_si(r.bytes_per_s, "B/s"));
  if (r.s_per_item > 0)
    out += (out.empty() ? "" : "<br>") + h(format_duration(r.s_per_item) + " per " + r.declared.item_name);
  return out.empty() ? "—" : out;
}

std::string floor_cell(const record& r) {
  if (!r.floor) return "—";
  return html_roof_share(r) + "<br><small>floor " + h(format_duration(r.floor->time_s)) + "</small>";
}

std::string speedup_cell(const record& r, bool first_of_size, const pair_speedups* speedups) {
  if (first_of_size) return "<small>baseline</small>";
  if (speedups != nullptr)
    for (const size_speedups& s : speedups->sizes)
      if (const variant_speedup* v = s.find(&r); v != nullptr && v->speedup) return html_speedup(*v, true);
  if (!r.speedup) return "—";
  return h(format_factor(*r.speedup));
}

std::string verification_cell(const record& r) {
  const verification& v = r.check;
  switch (v.result) {
    case disposition::reference: return "<small>reference</small>";
    case disposition::passed:
      if (r.tol.type == tolerance::kind::relative_l2)
        return fmt::format("✓ <small>rel. error {:.1e}<br>tolerance {:.0e}</small>", v.rel_l2_error, r.tol.max_rel_l2);
      return "✓ <small>exact</small>";
    case disposition::incorrect:
      return "<span class=\"badge bad\">✗ incorrect</span>" + (v.message.empty() ? "" : " <small>" + h(v.message) + "</small>");
    case disposition::not_verified:
      return "<small>not verified" + (v.message.empty() ? std::string() : ": " + h(v.message)) + "</small>";
  }
  return "?";
}

// What else a record measured about itself, under the variant's name: its launch (registers,
// occupancy; the console's line), its rank in a tuning grid, and its goodput.
std::string extras_of(const record& r) {
  std::string out;
  if (const std::string launch = launch_line(r.facts, r.metrics ? &*r.metrics : nullptr); !launch.empty())
    out += "<br><small>launch: " + h(launch) + "</small>";
  if (r.tuning && r.tuning->rank > 0) out += fmt::format("<br><small>tuning rank {}{}</small>", r.tuning->rank, r.tuning->rank == 1 ? " (best)" : "");
  if (r.goodput) {
    const goodput_info& g = *r.goodput;
    out += g.reason.empty() ? "<br><small>goodput " + h(format_percent(g.fraction)) + " (GPU kernels " + h(format_duration(g.kernel_s)) +
                                  " of " + h(format_duration(g.wall_s)) + " per run)</small>"
                            : "<br><small>goodput: " + h(g.reason) + "</small>";
  }
  return out;
}

std::string flags_cell(const record& r, double noise_target) {
  std::vector<std::string> flags;
  if (r.status != record_status::passed)
    flags.push_back(fmt::format("<span class=\"badge {}\">{}</span>{}", r.status == record_status::skipped ? "warn" : "bad",
                                h(to_string(r.status)), r.reason.empty() ? "" : " <small>" + h(r.reason) + "</small>"));
  if (r.floor && r.floor->suspect)
    flags.push_back("<span class=\"badge bad\">⚠ SUSPECT</span> <small>faster than the physical floor (" +
                    h(format_duration(r.floor->time_s)) + " at " + h(r.floor->bound) +
                    "): unequal work, a stub or a cache artefact</small>");
  const std::size_t throttled = std::accumulate(r.timing.throttled.begin(), r.timing.throttled.end(), std::size_t{0});
  if (throttled > 0)
    flags.push_back(fmt::format("<span class=\"badge warn\">throttled</span> <small>{} of {} samples</small>", throttled,
                                r.timing.samples_s.size()));
  // A round that hit the time limit missed its own share of the target, but the record pools its
  // rounds: it is noisy only when its own noise is above the run's target.
  if (r.status == record_status::passed && r.stats && std::isfinite(r.stats->rel_noise) &&
      r.stats->rel_noise > noise_target)
    flags.push_back("<span class=\"badge warn\">noisy</span> <small>noise " + h(format_percent(r.stats->rel_noise)) +
                    " above the run's target of " + h(format_percent(noise_target)) + "</small>");
  else if (r.status == record_status::passed && r.timing.stopped == stop_reason::timeout)
    flags.push_back("<small>a round stopped at the time limit; the record's noise is within the target</small>");
  // The counters' warnings are sentences; they go in a list under the table, where they have room.
  if (r.metrics && !r.metrics->warnings.empty())
    flags.push_back(fmt::format("<span class=\"badge warn\">counters</span> <small>{} warning{} below</small>",
                                r.metrics->warnings.size(), r.metrics->warnings.size() == 1 ? "" : "s"));
  std::string out;
  for (const auto& f : flags) out += (out.empty() ? "" : "<br>") + f;
  return out;
}

}  // namespace

std::string html_breakable(std::string_view s) {
  std::string out;
  for (const char ch : html_escape(s)) {
    if (ch == '[') out += "<wbr>";
    out += ch;
    if (ch == ',' || ch == '/') out += "<wbr>";
  }
  return out;
}

std::string html_ratio(const ratio_interval& r) {
  if (!std::isfinite(r.estimate)) return "n/a";
  const auto bound = [](double v) { return std::isfinite(v) ? fmt::format("{:.3f}", v) : std::string("n/a"); };
  return fmt::format("{:.3f}× <small class=\"ci\">[{}, {}]</small>", r.estimate, bound(r.low), bound(r.high));
}

std::string html_verdict(const record_comparison& r) {
  switch (r.result) {
    case verdict::slower:
      return r.critical ? "<span class=\"badge bad\">slower (critical)</span>" : "<span class=\"badge bad\">slower</span>";
    case verdict::faster: return "<span class=\"badge good\">faster</span>";
    case verdict::same: return "<span class=\"badge same\">same</span>";
    case verdict::inconclusive: return "<span class=\"badge warn\">inconclusive</span>";
  }
  return "?";
}

std::string html_device(const profile& p) {
  return "<div class=\"device\">\n" + provenance_table(p) + device_table(p.prov.device) + "</div>\n" +
         ceilings_table(p.ceil);
}

std::string html_record_table(const std::vector<const record*>& records, const std::vector<std::string>& row_ids,
                              const record_table_context& cx) {
  const bool compared = cx.verdicts != nullptr && !cx.verdicts->empty();
  std::string t =
      "<table class=\"records\"><thead><tr><th>size</th><th>variant</th><th class=\"num\">median ± noise</th>"
      "<th class=\"num\">throughput</th><th class=\"num\">of roof</th><th class=\"num\">speedup <small>95%</small></th>"
      "<th>verification</th><th>flags</th>";
  if (compared) t += "<th>vs base</th>";
  t += "</tr></thead>\n";
  const auto timed = [](const record& r) {
    return r.status == record_status::passed && r.stats && r.stats->median > 0;
  };
  for (std::size_t i = 0; i < records.size();) {
    std::size_t j = i;
    const std::string size = records[i]->size.to_string();
    while (j < records.size() && records[j]->size.to_string() == size) ++j;
    // Row order: as the profile lists them, or (a tuning grid) fastest first, untimed last.
    std::vector<std::size_t> order(j - i);
    for (std::size_t k = i; k < j; ++k) order[k - i] = k;
    if (cx.fastest_first)
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const record &x = *records[a], &y = *records[b];
        if (timed(x) != timed(y)) return timed(x);
        return timed(x) && x.stats->median < y.stats->median;
      });
    t += "<tbody>\n";
    for (std::size_t n = 0; n < order.size(); ++n) {
      const std::size_t k = order[n];
      const record& r = *records[k];
      const bool winner = cx.fastest_first && n == 0 && timed(r);
      std::string row_attrs = k < row_ids.size() ? " id=\"" + h(row_ids[k]) + "\"" : std::string();
      if (winner) row_attrs += " class=\"winner\"";
      t += "<tr" + row_attrs + ">";
      if (n == 0)
        t += fmt::format("<th scope=\"rowgroup\" rowspan=\"{}\" class=\"size\">{}</th>", j - i, html_breakable(size));
      std::string desc;
      if (cx.notes != nullptr)
        if (const auto it = cx.notes->variants.find(r.variant); it != cx.notes->variants.end()) desc = it->second;
      t += "<td class=\"variant\">" + std::string(winner ? "<span class=\"badge good\">fastest</span> " : "") +
           "<strong>" + h(r.variant) + "</strong>" + (k == i && cx.fastest_first ? " <small>(default)</small>" : "") +
           (desc.empty() ? "" : "<br><small>" + h(desc) + "</small>") + extras_of(r) + "</td>";
      t += "<td class=\"num\">" + (timed(r) ? median_cell(r) : std::string("—")) + "</td>";
      t += "<td class=\"num\">" + (timed(r) ? throughput_cell(r) : std::string("—")) + "</td>";
      t += "<td class=\"num\">" + (timed(r) ? floor_cell(r) : std::string("—")) + "</td>";
      t += "<td class=\"num\">" + speedup_cell(r, k == i, cx.speedups) + "</td>";
      t += "<td>" + verification_cell(r) + "</td><td>" + flags_cell(r, cx.noise_target) + "</td>";
      if (compared) {
        const auto it = cx.verdicts->find(r.id());
        t += "<td>" +
             (it == cx.verdicts->end() ? std::string("<small>not in base</small>")
                                       : html_verdict(*it->second) + "<br>" + html_ratio(it->second->ratio)) +
             "</td>";
      }
      t += "</tr>\n";
    }
    t += "</tbody>\n";
    i = j;
  }
  t += "</table>\n";
  std::string warnings;
  std::size_t count = 0;
  for (const record* r : records)
    if (r->metrics)
      for (const auto& w : r->metrics->warnings) {
        warnings += "<li><code>" + h(r->variant + "[" + r->size.to_string() + "]") + "</code>: " + h(w) + "</li>\n";
        ++count;
      }
  if (count > 0)
    t += fmt::format("<details><summary>{} hardware-counter warning{} stored in the profile</summary><ul>\n{}</ul></details>\n",
                     count, count == 1 ? "" : "s", warnings);
  return t;
}

}  // namespace gpubench::detail
