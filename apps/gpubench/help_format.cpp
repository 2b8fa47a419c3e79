// --help wrapped to the console's width (help_format.hpp).
#include "help_format.hpp"

#include <algorithm>

#include "gpubench/text_width.hpp"

namespace gpubench::app {

namespace {

/// Each line of `text` wrapped to `width`. A wrapped line's continuation keeps its indent; in an
/// indented list ("  130 run: ...") it lines up under the text after the item's first word.
std::string wrap_lines(const std::string& text, std::size_t width) {
  std::string out;
  for (std::size_t from = 0; from <= text.size();) {
    const std::size_t to = std::min(text.find('\n', from), text.size());
    const std::string line = text.substr(from, to - from);
    from = to + 1;
    const std::size_t lead = line.find_first_not_of(' ');
    if (lead == std::string::npos) {
      out += "\n";
      continue;
    }
    std::size_t indent = lead;
    if (const std::size_t gap = line.find(' ', lead); lead > 0 && gap != std::string::npos)
      if (const std::size_t item = line.find_first_not_of(' ', gap); item != std::string::npos)
        indent = std::min(item, width / 2);
    const std::string body = line.substr(lead);
    const std::vector<std::string> head = wrap_text(body, width > lead + 10 ? width - lead : 10);
    out += std::string(lead, ' ') + head.front() + "\n";
    if (head.size() == 1) continue;
    const std::string rest = body.substr(head.front().size());
    const std::size_t skip = rest.find_first_not_of(' ');
    if (skip == std::string::npos) continue;
    for (const std::string& part : wrap_text(rest.substr(skip), width > indent + 10 ? width - indent : 10))
      out += std::string(indent, ' ') + part + "\n";
  }
  return out;
}

}  // namespace

wrapping_formatter::wrapping_formatter(std::size_t width) : width_(std::max(width, kMinConsoleWidth)) {
  column_width(std::min<std::size_t>(30, width_ / 3));
}

std::string wrapping_formatter::name_and_text(const std::string& name, const std::string& text) const {
  const std::size_t column = get_column_width();
  std::string out;
  const std::string head = "  " + name;
  const std::size_t room = width_ > column + 10 ? width_ - column : 10;
  const std::vector<std::string> lines = text.empty() ? std::vector<std::string>{} : wrap_text(text, room);
  if (display_width(head) >= column || lines.empty()) {
    // A long name takes its own line(s), the text starts under the column.
    for (const std::string& part : wrap_text(head, width_, " ,")) out += part + "\n";
    for (const std::string& part : lines) out += std::string(column, ' ') + part + "\n";
    return out;
  }
  for (std::size_t i = 0; i < lines.size(); ++i)
    out += (i == 0 ? pad_right(head, column) : std::string(column, ' ')) + lines[i] + "\n";
  return out;
}

std::string wrapping_formatter::make_option(const CLI::Option* opt, bool is_positional) const {
  return name_and_text(make_option_name(opt, is_positional) + make_option_opts(opt), make_option_desc(opt));
}

std::string wrapping_formatter::make_subcommand(const CLI::App* sub) const {
  return name_and_text(sub->get_display_name(true), sub->get_description());
}

std::string wrapping_formatter::make_description(const CLI::App* app) const {
  const std::string text = CLI::Formatter::make_description(app);
  return text.empty() ? text : wrap_lines(text.substr(0, text.size() - 1), width_);
}

std::string wrapping_formatter::make_usage(const CLI::App* app, std::string name) const {
  const std::string text = CLI::Formatter::make_usage(app, std::move(name));
  return wrap_lines(text.substr(0, text.find_last_not_of('\n') + 1), width_);
}

std::string wrapping_formatter::make_footer(const CLI::App* app) const {
  return app->get_footer().empty() ? std::string() : wrap_lines(app->get_footer(), width_);
}

}  // namespace gpubench::app
