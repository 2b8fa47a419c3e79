// gnuplot is started with posix_spawn and an argument vector (process/spawn.hpp), never through a
// shell (popen, system): file names and the PATH lookup then carry no shell syntax at all.
#include "process/gnuplot_process.hpp"

#include <algorithm>
#include <fstream>

#include "process/spawn.hpp"

namespace gpubench::detail {

namespace fs = std::filesystem;

bool run_gnuplot(const fs::path& gnuplot, const fs::path& script, const fs::path& scratch, std::string& output) {
  const fs::path log = scratch / "gnuplot.log";
  const program_result r = run_program(gnuplot, {script.string()}, log);
  if (!r.started) {
    output = r.error;
    return false;
  }
  std::string text(kMaxGnuplotOutputBytes, '\0');
  std::ifstream in(log, std::ios::binary);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (!r.error.empty()) text += "\n" + r.error;
  // One line: error messages are printed as one (a newline in them could forge a line).
  output.clear();
  for (const char c : text) {
    if (c != '\n') output += c;
    else if (!output.empty() && output.compare(output.size() - std::min<std::size_t>(3, output.size()), 3, " | ") != 0)
      output += " | ";
  }
  while (output.size() >= 3 && output.compare(output.size() - 3, 3, " | ") == 0) output.resize(output.size() - 3);
  return r.exit_code == 0;
}

}  // namespace gpubench::detail
