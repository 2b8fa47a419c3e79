#pragma once
// What `compare` and `ab` do with a comparison: the console table and warnings, the optional
// markdown, JUnit and JSON reports, and the gate's exit code.
#include <cstdio>
#include <string>
#include <vector>

#include "gpubench/compare.hpp"

namespace gpubench::app {

struct comparison_outputs {
  std::string markdown, junit, json;  ///< paths; "-" is stdout (at most one of them)
  bool force = false;                 ///< replace read-only files, write through symbolic links
  bool quiet = false;                 ///< hide records whose verdict is 'same'
};

/// Before any work: at most one report on stdout, every path writable, and no two outputs (these
/// and `others`, such as profiles the command also writes) the same path. Throws usage_error.
void check_comparison_outputs(const comparison_outputs& o, const std::vector<std::string>& others = {});

/// Where the console table goes: stdout, or stderr when a report takes stdout.
std::FILE* comparison_report_stream(const comparison_outputs& o);

/// Prints the warnings and the table, writes the reports, and returns the exit code for
/// `gate`, compare's --fail-on (none, critical, slower, any). `strict_device`: two GPU models is an error (exit 2).
int emit_comparison(const comparison& c, const comparison_outputs& o, const std::string& gate, bool strict_device);

}  // namespace gpubench::app
