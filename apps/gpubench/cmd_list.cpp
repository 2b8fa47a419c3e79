// `gpubench list`: chapters and pairs with titles, explanations, variants and sizes. Offline.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "gpubench/registry.hpp"

namespace gpubench::app {

CLI::App* add_list(CLI::App& app, list_args& args) {
  auto* cmd = app.add_subcommand("list", "List chapters and their pairs (works without a GPU)");
  cmd->add_option("--chapter", args.chapter, "Only this chapter")->check(CLI::Range(1, 99));
  cmd->add_flag("--json", args.json, "Machine-readable output");
  cmd->footer(kExitCodeFooter);
  return cmd;
}

namespace {

std::string wrap(const std::string& text, std::size_t indent, std::size_t width = 96) {
  std::string out, line;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const auto word = text.substr(start, end - start);
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
  return out;
}

std::string axes_text(const pair_def& p) {
  std::vector<std::string> parts;
  std::size_t n = 1;
  for (const auto& a : p.axes) {
    std::vector<std::string> vals;
    for (const auto& v : a.values) vals.push_back(to_string(v));
    parts.push_back(fmt::format("{}={}", a.name, fmt::join(vals, ",")));
    n *= a.values.size();
  }
  return fmt::format("{}  ({} size{})", fmt::join(parts, " × "), n, n == 1 ? "" : "s");
}

/// A tuning pair's grid: "b ∈ {64,128} (threads per block) × e ∈ {1,2} (float4 per thread), where
/// b*e <= 2048: 3 configurations; baseline b128_e1".
std::string grid_text(const pair_def& p) {
  std::vector<std::string> params;
  for (const auto& g : p.grid->params())
    params.push_back(fmt::format("{} ∈ {{{}}} ({})", g.tag, fmt::join(g.values, ","), g.description));
  const std::size_t n = p.variants.size();
  return fmt::format("{}{}: {} configuration{}; baseline {}", fmt::join(params, " × "),
                     p.grid->rule().empty() ? std::string() : ", where " + p.grid->rule(), n, n == 1 ? "" : "s",
                     p.variants.empty() ? std::string("-") : p.variants.front().name);
}

}  // namespace

int run_list(const list_args& args) {
  const auto& reg = registry::global();
  auto pairs = reg.select(args.chapter, {});
  for (const auto* p : reg.pairs())  // and those that run one process per GPU (`gpubench collective`)
    if (p->one_process_per_gpu && (!args.chapter || p->chapter == *args.chapter)) pairs.push_back(p);
  if (args.json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& c : reg.chapters()) {
      if (args.chapter && c.number != *args.chapter) continue;
      nlohmann::ordered_json cj{{"chapter", c.number}, {"slug", c.slug}, {"title", c.title}, {"pairs", nlohmann::ordered_json::array()}};
      for (const auto* p : pairs) {
        if (p->chapter != c.number) continue;
        nlohmann::ordered_json pj{{"id", p->id()}, {"name", p->name}, {"title", p->title}, {"explanation", p->explanation}};
        for (const auto& v : p->variants) pj["variants"].push_back({{"name", v.name}, {"description", v.description}});
        for (const auto& a : p->axes) {
          nlohmann::ordered_json vals = nlohmann::ordered_json::array();
          for (const auto& v : a.values) std::visit([&](const auto& x) { vals.push_back(x); }, v);
          pj["axes"][a.name] = vals;
        }
        pj["tolerance"] = p->check.describe();
        pj["timing"] = to_string(p->timing);
        if (p->one_process_per_gpu) pj["one_process_per_gpu"] = true;
        if (p->grid) {
          nlohmann::ordered_json params = nlohmann::ordered_json::array();
          for (const auto& g : p->grid->params())
            params.push_back({{"tag", g.tag}, {"description", g.description}, {"values", g.values}});
          pj["tuning"] = {{"params", params}, {"rule", p->grid->rule()},
                          {"baseline", p->variants.empty() ? std::string() : p->variants.front().name},
                          {"configurations", p->variants.size()}};
        }
        cj["pairs"].push_back(pj);
      }
      // Pairs this build left out (chapter 8's NCCL pairs without NCCL): the reason and the fix.
      for (const auto* a : reg.absent(c.number))
        cj["absent_pairs"].push_back({{"id", a->id()}, {"name", a->name}, {"title", a->title}, {"reason", a->reason}});
      j.push_back(cj);
    }
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  for (const auto& c : reg.chapters()) {
    if (args.chapter && c.number != *args.chapter) continue;
    fmt::print("Chapter {} — {}\n", c.number, c.title.empty() ? "(untitled)" : c.title);
    for (const auto* p : pairs) {
      if (p->chapter != c.number) continue;
      std::vector<std::string> variants;
      for (const auto& v : p->variants) variants.push_back(v.name);
      fmt::print("\n  {:<18} {}\n", p->name, p->title);
      // A tuning pair lists its grid, not tens of configuration names (they are its variants).
      if (p->grid)
        fmt::print("      grid:     {}   (verified: {}; timed with {})\n", grid_text(*p), p->check.describe(),
                   to_string(p->timing));
      else
        fmt::print("      variants: {}   (verified: {}; timed with {})\n", fmt::join(variants, " → "),
                   p->check.describe(), to_string(p->timing));
      fmt::print("      sizes:    {}\n", axes_text(*p));
      if (p->one_process_per_gpu)
        fmt::print("      launch:   one process per GPU: mpirun -np N gpubench collective --pair {}\n", p->name);
      fmt::print("{}", wrap(p->explanation, 6));
    }
    for (const auto* a : reg.absent(c.number)) {
      fmt::print("\n  {:<18} {}\n", a->name, a->title);
      fmt::print("{}", wrap("NOT IN THIS BUILD: " + a->reason, 6));
    }
    fmt::print("\n");
  }
  return 0;
}

}  // namespace gpubench::app
