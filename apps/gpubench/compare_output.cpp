// What compare and ab print and write; see compare_output.hpp.
#include "compare_output.hpp"

#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpubench/console.hpp"
#include "gpubench/error.hpp"
#include "gpubench/escape.hpp"
#include "gpubench/export.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/text_file.hpp"

namespace gpubench::app {

void check_comparison_outputs(const comparison_outputs& o, const std::vector<std::string>& others) {
  // One report on stdout at most: two would interleave into something neither reader can parse.
  std::vector<std::string> on_stdout;
  for (const auto& [flag, path] : {std::pair{"--markdown", o.markdown}, {"--junit", o.junit}, {"--json", o.json}})
    if (path == "-") on_stdout.emplace_back(flag);
  if (on_stdout.size() > 1)
    throw usage_error(fmt::format("{} all write to stdout ('-'); send at most one report there and the others to files",
                                  fmt::join(on_stdout, " and ")));
  std::vector<std::string> paths;
  for (const auto& path : {o.markdown, o.junit, o.json})
    if (!path.empty() && path != "-") paths.push_back(path);
  for (const auto& path : others)
    if (!path.empty()) paths.push_back(path);
  for (const auto& path : paths) check_writable(path, o.force);
}

std::FILE* comparison_report_stream(const comparison_outputs& o) {
  return o.markdown == "-" || o.junit == "-" || o.json == "-" ? stderr : stdout;
}

int emit_comparison(const comparison& c, const comparison_outputs& o, const std::string& gate, bool strict_device) {
  if (!c.same_device) {
    const auto msg = fmt::format("the profiles come from different GPUs ({} vs {})", c.base_device, c.new_device);
    if (strict_device) throw usage_error(msg + "; drop --strict-device to compare anyway");
    print_compare_warning(stderr,
                          msg + ": absolute times differ by hardware; the speedup changes are the comparable part");
  }
  for (const std::string& w :
       {c.figures_differ_warning(), c.rest_differs_warning(), c.another_chip_warning(), c.history_repeats_warning()})
    if (!w.empty()) print_compare_warning(stderr, w);
  std::FILE* out = comparison_report_stream(o);
  print_comparison(out, c, detect_style(out, o.quiet));
  if (!o.markdown.empty()) write_text_file(o.markdown, comparison_markdown(c), o.force);
  if (!o.junit.empty()) write_text_file(o.junit, comparison_junit(c), o.force);
  if (!o.json.empty()) write_text_file(o.json, json_text(comparison_json(c)) + "\n", o.force);
  const fail_on policy = gate == "none"       ? fail_on::none
                         : gate == "critical" ? fail_on::critical
                         : gate == "any"      ? fail_on::any
                                              : fail_on::slower;
  return gate_exit_code(c, policy);
}

}  // namespace gpubench::app
