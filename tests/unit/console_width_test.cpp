/// The console fits the terminal: the real binary, at COLUMNS=80 and 120, over the committed
/// reference profiles. `compare`, `list` (and `list --brief`), `--help` of gpubench and of every
/// subcommand, and `roofline --format table` print no line wider than the width (display
/// columns: UTF-8 code points), and use the room a wider console gives them. The roofline table
/// marks every point above its roof.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;

/// `gpubench ARGS` with COLUMNS=`width`, stdout only (stderr_too: and stderr).
shell_result gpubench_at(std::size_t width, const std::string& args, bool stderr_too = false) {
  return run_shell("COLUMNS=" + std::to_string(width) + " '" + std::string(GPUBENCH_EXE) + "' " + args +
                   (stderr_too ? " 2>&1" : " 2>/dev/null"));
}

std::string profile(const std::string& name) {
  return "'" + (fs::path(GPUBENCH_SOURCE_DIR) / "profiles/reference" / name).string() + "'";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// Display width: code points (the console prints no wide or zero-width characters).
std::size_t columns(const std::string& line) {
  std::size_t n = 0;
  for (unsigned char c : line) n += (c & 0xc0) != 0x80;
  return n;
}

std::size_t widest(const std::string& text) {
  std::size_t w = 0;
  for (const std::string& line : lines_of(text)) w = std::max(w, columns(line));
  return w;
}

/// Every line of `gpubench ARGS` at `width` fits; returns the output.
std::string expect_fits(std::size_t width, const std::string& args, bool stderr_too = false) {
  const shell_result r = gpubench_at(width, args, stderr_too);
  EXPECT_NE(r.status, 2) << args << "\n" << r.output;
  EXPECT_FALSE(r.output.empty()) << args;
  for (const std::string& line : lines_of(r.output))
    EXPECT_LE(columns(line), width) << "gpubench " << args << " at " << width << " columns:\n" << line;
  return r.output;
}

/// The subcommands the top-level --help lists (names on lines indented by two spaces).
std::vector<std::string> subcommands() {
  std::vector<std::string> out;
  bool in_list = false;
  for (const std::string& line : lines_of(gpubench_at(80, "--help").output)) {
    if (line.rfind("Subcommands:", 0) == 0 || line.rfind("SUBCOMMANDS:", 0) == 0) {
      in_list = true;
      continue;
    }
    if (in_list && !line.empty() && line[0] != ' ') in_list = false;
    if (in_list && line.size() > 2 && line.rfind("  ", 0) == 0 && line[2] != ' ')
      out.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return out;
}

const std::size_t kWidths[] = {80, 120};

TEST(ConsoleWidth, HelpOfEveryCommand) {
  const std::vector<std::string> commands = subcommands();
  EXPECT_GE(commands.size(), 8u);
  for (const std::size_t w : kWidths) {
    expect_fits(w, "--help");
    for (const std::string& c : commands) expect_fits(w, c + " --help");
  }
  // The descriptions use the room: run's help has lines past 80 columns at 120.
  EXPECT_GT(widest(gpubench_at(120, "run --help").output), 80u);
  // The exit-code table keeps one code per line.
  EXPECT_NE(gpubench_at(80, "compare --help").output.find("\n  130 run: interrupted by Ctrl-C"), std::string::npos);
}

TEST(ConsoleWidth, List) {
  for (const std::size_t w : kWidths) {
    expect_fits(w, "list");
    const std::string brief = expect_fits(w, "list --brief");
    // One line per pair: as many lines as `list --json` has pairs and absent pairs.
    const std::string json = gpubench_at(w, "list --json").output;
    std::size_t ids = 0;
    for (std::size_t at = json.find("\"id\""); at != std::string::npos; at = json.find("\"id\"", at + 1)) ++ids;
    EXPECT_EQ(lines_of(brief).size(), ids) << brief;
  }
  EXPECT_GT(widest(gpubench_at(120, "list").output), 80u) << "list wraps to COLUMNS, not to 80 always";
  EXPECT_EQ(gpubench_at(80, "list --brief --json", true).status, 2) << "--brief and --json exclude each other";
}

TEST(ConsoleWidth, Compare) {
  const std::pair<const char*, const char*> pairs[] = {{"h100-ch05.json", "h100-ch05-metrics.json"},
                                                       {"h200-ch01.json", "h200-ch01-r2.json"},
                                                       {"h100-ch01.json", "h100-ch01-r2.json"},
                                                       {"h100-ch02.json", "h100-ch02-metrics.json"},
                                                       {"h100-ch03.json", "h100-ch03-metrics.json"},
                                                       {"h100-ch07.json", "h200-ch07.json"}};
  for (const std::size_t w : kWidths)
    for (const auto& [base, next] : pairs) {
      const std::string out = expect_fits(w, std::string("compare ") + profile(base) + " " + profile(next), true);
      EXPECT_NE(out.find("time change [interval]"), std::string::npos) << out;
    }
  const std::string history = profile("h200-ch01-r3.json") + " " + profile("h200-ch01-r4.json");
  for (const std::size_t w : kWidths)
    expect_fits(w,
                "compare " + profile("h200-ch01.json") + " " + profile("h200-ch01-r2.json") + " --history " + history,
                true);
  // At 120 the ids get a wider column: fewer lines than at 80.
  const std::string args =
      std::string("compare ") + profile("h100-ch05.json") + " " + profile("h100-ch05-metrics.json");
  EXPECT_LT(lines_of(gpubench_at(120, args).output).size(), lines_of(gpubench_at(80, args).output).size());
}

TEST(ConsoleWidth, CompareFootnotesOncePerKindOfReason) {
  const std::string out =
      gpubench_at(80, std::string("compare ") + profile("h100-ch05.json") + " " + profile("h100-ch05-metrics.json"))
          .output;
  const std::size_t why = out.find("why inconclusive:");
  ASSERT_NE(why, std::string::npos) << out;
  // Footnotes that differ only in their numbers are one: no two notes read the same once the
  // numbers are taken out.
  std::vector<std::string> shapes;
  const std::regex note(R"(^  \[(\d+)\] (.*)$)"), number(R"([+-]?\d+(\.\d+)?)");
  for (const std::string& line : lines_of(out.substr(why))) {
    std::smatch m;
    if (!std::regex_match(line, m, note)) continue;
    const std::string shape = std::regex_replace(m[2].str(), number, "#");
    for (const std::string& s : shapes) EXPECT_NE(s, shape) << out.substr(why);
    shapes.push_back(shape);
  }
  EXPECT_FALSE(shapes.empty()) << out.substr(why);
}

TEST(ConsoleWidth, RooflineTableFitsAndMarksPointsAboveTheirRoof) {
  std::size_t tables = 0;
  const std::regex fraction(R"(([0-9]+\.[0-9]+)%(\*?)\s*$)");
  for (const auto& entry : fs::directory_iterator(fs::path(GPUBENCH_SOURCE_DIR) / "profiles/reference")) {
    if (entry.path().extension() != ".json") continue;
    for (const std::size_t w : kWidths) {
      const std::string args = "roofline --format table --from '" + entry.path().string() + "'";
      const shell_result r = gpubench_at(w, args);
      if (r.status != 0) continue;  // a profile with nothing to place (chapter 8's transfers)
      ++tables;
      for (const std::string& line : lines_of(r.output)) {
        EXPECT_LE(columns(line), w) << args << " at " << w << ":\n" << line;
        std::smatch m;
        if (std::regex_search(line, m, fraction) && std::stod(m[1].str()) > 100.0)
          EXPECT_EQ(m[2].str(), "*") << "above its roof without a mark: " << line;
      }
      if (r.output.find("%*") != std::string::npos)
        EXPECT_NE(r.output.find("* above its roof"), std::string::npos) << "a mark without its explanation\n"
                                                                        << r.output;
    }
  }
  EXPECT_GE(tables, 20u);
}

// Errors on a terminal wrap like the rest of the console, continuation lines under the message: an
// unknown command (its list of commands), a missing file with a long path, and an option CLI11
// rejects. Off a terminal an error stays one line (fleet_task.cpp keeps a run's last line).
TEST(ConsoleWidth, ErrorsWrapOnATerminal) {
  if (run_shell("script -qec true /dev/null >/dev/null 2>&1").status != 0)
    GTEST_SKIP() << "script(1) (util-linux, Debian package bsdutils) is needed to give gpubench a terminal";
  // `gpubench ARGS` on a pseudo-terminal `width` columns wide; script(1) ends its lines with "\r\n".
  const auto on_terminal = [](std::size_t width, const std::string& args) {
    shell_result r = run_shell("COLUMNS=" + std::to_string(width) + " script -qec \"'" + std::string(GPUBENCH_EXE) +
                               "' " + args + "\" /dev/null");
    std::erase(r.output, '\r');
    return r;
  };
  const std::string missing = "/tmp/gpubench-no-such-dir/" + std::string(60, 'd') + "/profile-that-is-not-there.json";
  for (const std::size_t w : kWidths)
    for (const std::string& args :
         {std::string("frobnicate"), "report '" + missing + "' --out /tmp/x.html", std::string("run --chapter")}) {
      const shell_result r = on_terminal(w, args);
      EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
      EXPECT_NE(r.output.find("gpubench: error: "), std::string::npos) << r.output;
      for (const std::string& line : lines_of(r.output))
        EXPECT_LE(columns(line), w) << "gpubench " << args << " at " << w << " columns:\n" << line;
    }
  const std::vector<std::string> lines = lines_of(on_terminal(80, "frobnicate").output);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[1].rfind(std::string(17, ' '), 0), 0u) << "under the text after \"gpubench: error: \": " << lines[1];
  EXPECT_NE(lines[1][17], ' ');
  EXPECT_LT(lines_of(on_terminal(120, "frobnicate").output).size(), lines.size()) << "120 columns hold more";
  // Piped, the same error is one line, whatever COLUMNS says.
  EXPECT_EQ(lines_of(gpubench_at(80, "frobnicate", true).output).size(), 1u);
}

}  // namespace
