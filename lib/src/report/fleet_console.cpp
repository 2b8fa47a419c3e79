// `gpubench fleet report` on the console (gpubench/fleet_report.hpp): what an operator acts on
// first (the flagged GPUs and their records), then the ranking, then what did not report.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "gpubench/fleet_report.hpp"
#include "text/untrusted_text.hpp"

namespace gpubench {

namespace {

// `line` cut to `width` code points, with an ellipsis where it was cut.
std::string fit(const std::string& line, std::size_t width) {
  std::size_t columns = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if ((c & 0xc0) == 0x80) continue;
    if (++columns > width) {
      std::size_t cut = i;
      // back up one more code point for the ellipsis
      do --cut;
      while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xc0) == 0x80);
      return line.substr(0, cut) + "…";
    }
  }
  return line;
}

// `text` in lines of at most `width` code points after `indent` spaces, broken at spaces (a word
// longer than a line is cut by fit()).
std::vector<std::string> wrap(const std::string& text, std::size_t indent, std::size_t width) {
  const auto count = [](const std::string& w) {
    std::size_t n = 0;
    for (const unsigned char c : w) n += (c & 0xc0) != 0x80 ? 1 : 0;
    return n;
  };
  std::vector<std::string> lines;
  std::string line;
  std::size_t columns = 0, at = 0;
  while (at < text.size()) {
    const std::size_t space = std::min(text.find(' ', at), text.size());
    const std::string word = text.substr(at, space - at);
    at = space + 1;
    if (word.empty()) continue;
    if (!line.empty() && indent + columns + 1 + count(word) > width) {
      lines.push_back(line);
      line.clear();
      columns = 0;
    }
    if (!line.empty()) {
      line += ' ';
      ++columns;
    }
    line += word;
    columns += count(word);
  }
  if (!line.empty()) lines.push_back(line);
  for (auto& l : lines) l = std::string(indent, ' ') + l;
  return lines;
}

std::string pct(double ratio) { return fmt::format("{:+.1f}", (ratio - 1) * 100); }

std::string clean(const std::string& s) { return detail::clean_text(s, detail::kMaxShortTextBytes); }

}  // namespace

std::string fleet_gpu_label(const fleet_task_tags& t) {
  std::string uuid = t.gpu_uuid;
  if (uuid.rfind("GPU-", 0) == 0 && uuid.size() > 12) uuid = uuid.substr(0, 12);
  std::string node = t.node.empty() ? t.host : t.node;
  if (node.empty()) node = fmt::format("task{}", t.task);
  return clean(uuid.empty() ? fmt::format("{} task{}", node, t.task) : node + " " + uuid);
}

std::string fleet_console(const fleet_ranking& r, std::size_t width, std::size_t slowest) {
  width = std::max<std::size_t>(width, 40);
  std::string out;
  const auto line = [&](const std::string& s) { out += fit(s, width) + "\n"; };

  const std::size_t stored = r.stored;
  line(fmt::format("fleet job {}: {} GPU profile{} stored{}, {} failed, {} missing", clean(r.job_id), stored,
                   stored == 1 ? "" : "s",
                   r.expected_tasks > 0 ? fmt::format(" of {} tasks", r.expected_tasks) : std::string(),
                   r.failures.size(), r.missing.size()));
  line(fmt::format("  band ±{:.1f}% of the fleet median; {:.0f}% simultaneous intervals", r.options.band * 100,
                   (1 - r.options.alpha) * 100));

  for (std::size_t gi = 0; gi < r.groups.size(); ++gi) {
    const fleet_group& g = r.groups[gi];
    out += "\n";
    if (gi > 0) line(fmt::format("Kept apart, another model than the fleet's {}:", clean(r.groups[0].model)));
    const auto flagged = g.flagged_gpus();
    line(fmt::format("{}: {} GPU{}, {} record{}{}", clean(g.model), g.gpus.size(), g.gpus.size() == 1 ? "" : "s",
                     g.records.size(), g.records.size() == 1 ? "" : "s",
                     g.not_ranked.empty()
                         ? fmt::format("; {} GPU{} flagged", flagged.size(), flagged.size() == 1 ? "" : "s")
                         : std::string()));
    if (!g.not_ranked.empty()) {
      line("  not ranked: " + g.not_ranked);
      const auto listed = g.slowest_first();
      if (listed.empty()) {
        for (const auto& gpu : g.gpus)
          line("    " + fleet_gpu_label(gpu.tags) + " (task " + std::to_string(gpu.tags.task) + ")");
        continue;
      }
      // Slowest first, each with the records where it is farthest from the others; unflagged.
      line("  each GPU against their median (geometric mean; no interval, no flag),");
      line("  slowest first, with its three farthest records:");
      for (const auto& l : listed) {
        line(fmt::format("    {:>6}%  {} (task {})", pct(g.overall_ratio(l.gpu)), fleet_gpu_label(g.gpus[l.gpu].tags),
                         g.gpus[l.gpu].tags.task));
        for (const std::size_t k : l.farthest)
          line(fmt::format("      {:>6}%  {}", pct(g.cells[l.gpu][k].ratio), clean(g.records[k].id)));
      }
      continue;
    }
    for (const std::size_t i : flagged) {
      std::size_t slow = 0, fast = 0;
      for (const auto& c : g.cells[i]) {
        slow += c.flag == fleet_flag::slow ? 1 : 0;
        fast += c.flag == fleet_flag::fast ? 1 : 0;
      }
      std::string what;
      if (slow > 0) what += fmt::format("slow on {} record{}", slow, slow == 1 ? "" : "s");
      if (fast > 0) what += fmt::format("{}fast on {} record{}", what.empty() ? "" : ", ", fast, fast == 1 ? "" : "s");
      // A long label is cut, never what it is flagged for.
      const std::size_t room = width > what.size() + 4 ? width - what.size() - 4 : 1;
      line(fmt::format("  {}  {}", fit(fleet_gpu_label(g.gpus[i].tags), room), what));
      // The records, the farthest from the fleet first.
      std::vector<std::size_t> recs;
      for (std::size_t k = 0; k < g.records.size(); ++k)
        if (g.cells[i][k].flag != fleet_flag::none) recs.push_back(k);
      std::sort(recs.begin(), recs.end(), [&](std::size_t a, std::size_t b) {
        return std::abs(std::log(g.cells[i][a].ratio)) > std::abs(std::log(g.cells[i][b].ratio));
      });
      for (const std::size_t k : recs) {
        const fleet_cell& c = g.cells[i][k];
        line(fmt::format("    {:>6}% [{}, {}]  {}", pct(c.ratio), pct(c.low), pct(c.high), clean(g.records[k].id)));
      }
    }
    // The ranking: the slowest GPUs over all their records.
    std::vector<std::size_t> order(g.gpus.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return g.overall_ratio(a) > g.overall_ratio(b); });
    const std::size_t n = std::min(slowest, order.size());
    if (n > 0) line(fmt::format("  slowest {} (geometric mean of a GPU's ratios to the median):", n));
    for (std::size_t k = 0; k < n; ++k)
      line(fmt::format("    {:>3}  {:>6}%  {}", k + 1, pct(g.overall_ratio(order[k])),
                       fleet_gpu_label(g.gpus[order[k]].tags)));
  }

  if (!r.failures.empty()) {
    out += "\n";
    line(fmt::format("Failed tasks ({}):", r.failures.size()));
    for (const auto& f : r.failures) {
      line(fmt::format("  task {} on {}:", f.tags.task, clean(f.tags.node.empty() ? f.tags.host : f.tags.node)));
      for (const auto& l : wrap(detail::clean_text(f.reason, detail::kMaxLongTextBytes), 4, width)) line(l);
    }
  }
  if (!r.missing.empty()) {
    out += "\n";
    line(fmt::format("Missing tasks ({}): stored neither a profile nor a failure; their node may", r.missing.size()));
    line(fmt::format("have been lost or the job may still run (sacct -j {} tells):", clean(r.job_id)));
    for (const auto& m : r.missing)
      line(fmt::format("  task {}{}", m.task, m.node.empty() ? std::string() : " on " + clean(m.node)));
  }
  if (!r.silent_nodes.empty()) {
    std::vector<std::string> names;
    for (const auto& n : r.silent_nodes) names.push_back(clean(n));
    line(fmt::format("Nodes that stored no profile: {}", fmt::join(names, ", ")));
  }
  if (r.expected_tasks == 0) line("No manifest: the job's allocation is unknown, so missing tasks cannot be named.");
  if (!r.unreadable.empty()) {
    out += "\n";
    line(fmt::format("Unreadable entries ({}):", r.unreadable.size()));
    for (const auto& u : r.unreadable)
      for (const auto& l : wrap(detail::clean_text(u, detail::kMaxLongTextBytes), 2, width)) line(l);
  }
  return out;
}

}  // namespace gpubench
