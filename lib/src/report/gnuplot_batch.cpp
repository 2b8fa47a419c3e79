// One gnuplot process for a report's charts; see gnuplot_batch.hpp.
#include "report/gnuplot_batch.hpp"

#include <fstream>
#include <iterator>

#include "gpubench/error.hpp"
#include "process/gnuplot_process.hpp"

namespace gpubench::detail {

namespace fs = std::filesystem;

std::vector<std::string> render_gnuplot_jobs(const std::vector<gnuplot_job>& jobs, const fs::path& gnuplot,
                                             const fs::path& scratch) {
  std::string script;
  std::size_t outputs = 0;
  for (const gnuplot_job& j : jobs) {
    if (!j.data_name.empty() && !(std::ofstream(scratch / j.data_name, std::ios::binary) << j.data).flush())
      throw runtime_error("cannot write gnuplot's input in " + scratch.string() + "; check free space in TMPDIR");
    script += j.script;
    outputs += j.outputs.size();
  }
  if (outputs == 0) return {};
  script += "unset output\n";
  const fs::path path = scratch / "charts.gp";
  if (!(std::ofstream(path, std::ios::binary) << script).flush())
    throw runtime_error("cannot write gnuplot's input in " + scratch.string() + "; check free space in TMPDIR");
  std::string output;
  const bool ok = run_gnuplot(gnuplot, path, scratch, output);
  std::vector<std::string> svgs;
  for (const gnuplot_job& j : jobs)
    for (const std::string& name : j.outputs) {
      std::string svg;
      if (ok) {
        std::ifstream in(scratch / name, std::ios::binary);
        svg.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
      if (svg.find("</svg>") == std::string::npos)
        throw runtime_error("gnuplot failed on the report's charts (" + name + ")" +
                            (output.empty() ? std::string(" without a message") : ":\n" + output));
      svgs.push_back(std::move(svg));
    }
  return svgs;
}

}  // namespace gpubench::detail
