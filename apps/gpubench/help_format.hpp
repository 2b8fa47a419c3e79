#pragma once
// --help wrapped to the console: CLI11's own formatter writes each description on one line, however
// long; this one wraps descriptions, the app's text and the footer to a width, in display columns.
#include <cstddef>
#include <string>

#include <CLI/CLI.hpp>

namespace gpubench::app {

class wrapping_formatter : public CLI::Formatter {
 public:
  /// Lines of at most `width` columns; the option names take up to 30 of them (less on a narrow console).
  explicit wrapping_formatter(std::size_t width);

  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_usage(const CLI::App* app, std::string name) const override;
  std::string make_footer(const CLI::App* app) const override;

 private:
  /// "  NAME  description", the description wrapped in its column right of the names.
  std::string name_and_text(const std::string& name, const std::string& text) const;
  std::size_t width_;
};

}  // namespace gpubench::app
