// The global pair registry: filled by static registrars in chapters/, read by the driver.
#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "text/untrusted_text.hpp"
#include "gpubench/error.hpp"
#include "gpubench/registry.hpp"

namespace gpubench {

std::vector<std::string> validate(const pair_def& def) {
  std::vector<std::string> problems;
  if (def.chapter <= 0 || def.chapter > 99) problems.push_back("chapter must be 1..99");
  // The profile reader holds names to the same rule (text/untrusted_text.hpp), so a pair that
  // breaks it would write profiles gpubench cannot read back.
  if (def.name.empty()) problems.push_back("empty name");
  else if (!detail::valid_name(def.name)) problems.push_back("name must be snake_case ([a-z0-9_], at most 64 characters)");
  if (def.title.empty()) problems.push_back("no title");
  if (def.explanation.empty()) problems.push_back("no explanation (.explain): say what the optimization teaches");
  if (def.variants.size() < 2) problems.push_back("needs two or more variants (the first is the baseline)");
  if (!def.work_model) problems.push_back("no work model (.work)");
  if (def.axes.empty()) problems.push_back("no axes (.axis): declare at least one size");
  std::set<std::string> seen;
  for (const auto& v : def.variants) {
    if (!seen.insert(v.name).second) problems.push_back(fmt::format("duplicate variant '{}'", v.name));
    if (!detail::valid_name(v.name))
      problems.push_back(fmt::format("variant '{}': name must be snake_case ([a-z0-9_], at most 64 characters)", v.name));
    if (!v.run) problems.push_back(fmt::format("variant '{}' has no function", v.name));
    if (v.options.check && v.options.check->type == tolerance::kind::relative_l2 && !(v.options.check->max_rel_l2 > 0))
      problems.push_back(fmt::format("variant '{}': a relative tolerance must be > 0", v.name));
  }
  if (!def.variants.empty() && def.variants.front().options.check)
    problems.push_back("the baseline declares a tolerance, but it is the reference the others are checked against");
  for (const auto& p : def.declaration_problems) problems.push_back(p);
  // A tuning pair is one kernel over a grid: every variant is a configuration of it (named by it),
  // so ranking the variants ranks configurations, and `list` can show the grid for the variants.
  if (def.grid) {
    for (const auto& p : def.grid->problems()) problems.push_back(p);
    for (const auto& v : def.variants)
      if (v.config.empty() || v.config.name() != v.name)
        problems.push_back(fmt::format("variant '{}' is not a configuration of the tuning grid (declare a tuning "
                                       "pair's variants with .tune() only)",
                                       v.name));
  } else {
    for (const auto& v : def.variants)
      if (!v.config.empty()) problems.push_back(fmt::format("variant '{}' has a tuning configuration but the pair has no grid", v.name));
  }
  std::set<std::string> axis_names;
  for (const auto& a : def.axes) {
    if (!axis_names.insert(a.name).second) problems.push_back(fmt::format("duplicate axis '{}'", a.name));
    if (!detail::valid_name(a.name))
      problems.push_back(fmt::format("axis '{}': name must be snake_case ([a-z0-9_], at most 64 characters)", a.name));
    if (a.values.empty()) problems.push_back(fmt::format("axis '{}' has no values", a.name));
  }
  return problems;
}

registry& registry::global() {
  static registry instance;
  return instance;
}

void registry::add(pair_def def) {
  for (const auto& p : validate(def)) problems_.push_back(fmt::format("{}: {}", def.id(), p));
  for (const auto& existing : pairs_)
    if (existing->chapter == def.chapter && existing->name == def.name)
      problems_.push_back(fmt::format("{}: declared twice", def.id()));
  pairs_.push_back(std::make_unique<pair_def>(std::move(def)));
}

void registry::add(absent_pair a) {
  if (a.chapter <= 0 || a.chapter > 99) problems_.push_back(fmt::format("{}: chapter must be 1..99", a.id()));
  if (!detail::valid_name(a.name))
    problems_.push_back(fmt::format("{}: name must be snake_case ([a-z0-9_], at most 64 characters)", a.id()));
  if (a.reason.empty()) problems_.push_back(fmt::format("{}: an absent pair must say why it is absent", a.id()));
  for (const auto& p : pairs_)
    if (p->chapter == a.chapter && p->name == a.name)
      problems_.push_back(fmt::format("{}: declared both built and absent", a.id()));
  absent_.push_back(std::move(a));
}

std::vector<const absent_pair*> registry::absent(std::optional<int> chapter) const {
  std::vector<const absent_pair*> out;
  for (const auto& a : absent_)
    if (!chapter || a.chapter == *chapter) out.push_back(&a);
  std::sort(out.begin(), out.end(), [](const absent_pair* a, const absent_pair* b) {
    return std::tie(a->chapter, a->name) < std::tie(b->chapter, b->name);
  });
  return out;
}

void registry::add(chapter_def def) {
  if (find_chapter(def.number) != nullptr)
    problems_.push_back(fmt::format("chapter {} declared twice", def.number));
  chapters_.push_back(std::move(def));
}

std::vector<const pair_def*> registry::pairs() const {
  std::vector<const pair_def*> out;
  for (const auto& p : pairs_) out.push_back(p.get());
  std::sort(out.begin(), out.end(), [](const pair_def* a, const pair_def* b) {
    return std::tie(a->chapter, a->name) < std::tie(b->chapter, b->name);
  });
  return out;
}

std::vector<chapter_def> registry::chapters() const {
  // Chapters that have pairs but no chapter.cpp still show up, untitled.
  std::vector<chapter_def> out = chapters_;
  for (const auto& p : pairs_)
    if (std::none_of(out.begin(), out.end(), [&](const chapter_def& c) { return c.number == p->chapter; }))
      out.push_back({p->chapter, "", ""});
  for (const auto& a : absent_)
    if (std::none_of(out.begin(), out.end(), [&](const chapter_def& c) { return c.number == a.chapter; }))
      out.push_back({a.chapter, "", ""});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
  return out;
}

const chapter_def* registry::find_chapter(int number) const {
  for (const auto& c : chapters_)
    if (c.number == number) return &c;
  return nullptr;
}

std::vector<const pair_def*> registry::select(std::optional<int> chapter, const std::vector<std::string>& names) const {
  std::vector<const pair_def*> in_chapter;
  for (const auto* p : pairs())
    if (!chapter || p->chapter == *chapter) in_chapter.push_back(p);
  // A pair this build left out is named with its reason, not as unknown.
  const auto absent_message = [&](const absent_pair& a) {
    return usage_error(fmt::format("{} is not in this build: {}", a.id(), a.reason));
  };
  if (chapter && in_chapter.empty() && !absent(chapter).empty()) throw absent_message(*absent(chapter).front());
  if (chapter && in_chapter.empty()) {
    std::vector<std::string> valid;
    for (const auto& c : chapters()) valid.push_back(fmt::format("{} ({})", c.number, c.title));
    throw usage_error(fmt::format("no chapter {}; valid chapters: {}. See `gpubench list`.", *chapter,
                                  valid.empty() ? std::string("none registered") : fmt::format("{}", fmt::join(valid, ", "))));
  }
  if (names.empty()) return in_chapter;
  std::vector<const pair_def*> out;
  for (const auto& name : names) {
    const auto it = std::find_if(in_chapter.begin(), in_chapter.end(),
                                 [&](const pair_def* p) { return p->name == name || p->id() == name; });
    if (it == in_chapter.end()) {
      for (const auto* a : absent(chapter))
        if (a->name == name || a->id() == name) throw absent_message(*a);
      std::vector<std::string> valid;
      for (const auto* p : in_chapter) valid.push_back(p->name);
      throw usage_error(fmt::format("no pair '{}'{}; valid pairs: {}", name,
                                    chapter ? fmt::format(" in chapter {}", *chapter) : std::string(),
                                    fmt::join(valid, ", ")));
    }
    if (std::find(out.begin(), out.end(), *it) == out.end()) out.push_back(*it);
  }
  return out;
}

}  // namespace gpubench
