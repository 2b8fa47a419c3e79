// gnuplot is started with posix_spawn and an argument vector (common/spawn.hpp), never through a
// shell (popen, system): file names and the PATH lookup then carry no shell syntax at all.
#include "roofline/gnuplot_process.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>

#include "common/spawn.hpp"
#include "gpubench/error.hpp"
#include "gpubench/roofline.hpp"

namespace gpubench {

namespace fs = std::filesystem;

fs::path find_gnuplot() {
  // execvp's rules: PATH's entries in order, an empty entry meaning the current directory, and
  // the system default path when PATH is unset.
  std::string path;
  if (const char* p = std::getenv("PATH")) {
    path = p;
  } else {
    path.resize(::confstr(_CS_PATH, nullptr, 0));
    if (!path.empty()) path.resize(::confstr(_CS_PATH, path.data(), path.size()) - 1);
  }
  for (std::size_t start = 0; start <= path.size();) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string dir = path.substr(start, end - start);
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "gnuplot";
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return {};
}

namespace detail {

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

}  // namespace detail
}  // namespace gpubench
