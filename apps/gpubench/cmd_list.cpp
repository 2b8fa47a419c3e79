// `gpubench list`: chapters and pairs with titles, explanations, variants and sizes (or one line
// per pair with --brief), wrapped to the console. Offline.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "gpubench/registry.hpp"
#include "gpubench/text_width.hpp"

namespace gpubench::app {

CLI::App* add_list(CLI::App& app, list_args& args) {
  auto* cmd = app.add_subcommand("list", "List chapters and their pairs (works without a GPU)");
  cmd->add_option("--chapter", args.chapter, "Only this chapter")->check(CLI::Range(1, 99));
  auto* json = cmd->add_flag("--json", args.json, "Machine-readable output");
  cmd->add_flag("--brief", args.brief, "One line per pair: its id and title, cut to the console's width")
      ->excludes(json);
  cmd->footer(kExitCodeFooter);
  return cmd;
}

namespace {

/// `text` cut to `width` columns, with "…" where it was cut.
std::string cut(const std::string& text, std::size_t width) {
  if (display_width(text) <= width) return text;
  return wrap_text(text, width > 1 ? width - 1 : 1, " ").front() + "…";
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
  const std::size_t width = console_width(stdout);
  if (args.brief) {
    std::size_t id_w = 0;
    for (const auto* p : pairs) id_w = std::max(id_w, display_width(p->id()));
    for (const auto& c : reg.chapters())
      for (const auto* a : reg.absent(c.number)) id_w = std::max(id_w, display_width(a->id()));
    id_w = std::min(id_w, width / 2);
    for (const auto& c : reg.chapters()) {
      if (args.chapter && c.number != *args.chapter) continue;
      for (const auto* p : pairs)
        if (p->chapter == c.number) fmt::print("{}\n", cut(pad_right(p->id(), id_w) + "  " + p->title, width));
      for (const auto* a : reg.absent(c.number))
        fmt::print("{}\n", cut(pad_right(a->id(), id_w) + "  (not in this build) " + a->title, width));
    }
    return 0;
  }
  for (const auto& c : reg.chapters()) {
    if (args.chapter && c.number != *args.chapter) continue;
    fmt::print("{}",
               wrap_with_lead("", fmt::format("Chapter {} — {}", c.number, c.title.empty() ? "(untitled)" : c.title),
                              width));
    for (const auto* p : pairs) {
      if (p->chapter != c.number) continue;
      std::vector<std::string> variants;
      for (const auto& v : p->variants) variants.push_back(v.name);
      fmt::print("\n{}", wrap_with_lead(fmt::format("  {:<18} ", p->name), p->title, width));
      // A tuning pair lists its grid, not tens of configuration names (they are its variants).
      if (p->grid)
        fmt::print("{}", wrap_with_lead("      grid:     ",
                                        fmt::format("{}   (verified: {}; timed with {})", grid_text(*p),
                                                    p->check.describe(), to_string(p->timing)),
                                        width, ","));
      else
        fmt::print("{}", wrap_with_lead("      variants: ",
                                        fmt::format("{}   (verified: {}; timed with {})", fmt::join(variants, " → "),
                                                    p->check.describe(), to_string(p->timing)),
                                        width));
      fmt::print("{}", wrap_with_lead("      sizes:    ", axes_text(*p), width, ","));
      if (p->one_process_per_gpu)
        fmt::print("{}",
                   wrap_with_lead("      launch:   ",
                                  "one process per GPU: mpirun -np N gpubench collective --pair " + p->name, width));
      fmt::print("{}", wrap_with_lead("      ", p->explanation, width));
    }
    for (const auto* a : reg.absent(c.number)) {
      fmt::print("\n{}", wrap_with_lead(fmt::format("  {:<18} ", a->name), a->title, width));
      fmt::print("{}", wrap_with_lead("      ", "NOT IN THIS BUILD: " + a->reason, width));
    }
    fmt::print("\n");
  }
  return 0;
}

}  // namespace gpubench::app
