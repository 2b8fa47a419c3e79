// gnuplot is started with posix_spawn and an argument vector (process/spawn.hpp), never through a
// shell (popen, system): file names and the PATH lookup then carry no shell syntax at all.
#include "process/gnuplot_process.hpp"

#include <fstream>
#include <iterator>

#include "process/spawn.hpp"

namespace gpubench::detail {

namespace fs = std::filesystem;

bool run_gnuplot(const fs::path& gnuplot, const fs::path& script, const fs::path& scratch, std::string& output) {
  const fs::path log = scratch / "gnuplot.log";
  const program_result r = run_program(gnuplot, {script.string()}, log);
  if (!r.started) {
    output = r.error + "\n";
    return false;
  }
  std::ifstream in(log, std::ios::binary);
  output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (!r.error.empty()) output += r.error + "\n";
  return r.exit_code == 0;
}

}  // namespace gpubench::detail
