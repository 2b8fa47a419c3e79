/// libFuzzer target for every reader of untrusted input (docs/testing.md, "Fuzzing the readers"):
/// each input goes through each entry of kReaders below.
///
/// The readers' contract: any input either becomes what it describes or is refused with a
/// gpubench::error (exit code 2, naming where); the ceilings cache never throws at all. Anything
/// else — another exception type, a crash, an ASan or UBSan report — is a bug. What a reader
/// accepts must then hold to its promises (samples of at least 1 ns, derived fields as recomputed),
/// write back, and go through every output — compare (with repeated history), the exports, the
/// escaping layers — each of which must give well-formed text.
///
/// To fuzz another reader (the run store's import, for one), add a function here and a row to
/// kReaders: it gets the same bytes and the same corpus (tests/fuzz/corpus, tests/hostile/cases).
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gpubench/ceilings_cache.hpp"
#include "gpubench/compare.hpp"
#include "gpubench/console.hpp"
#include "gpubench/error.hpp"
#include "gpubench/escape.hpp"
#include "gpubench/export.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/strict_json.hpp"

namespace {

using ojson = nlohmann::ordered_json;

[[noreturn]] void bug(const char* what, const std::string& detail) {
  std::fprintf(stderr, "reader bug: %s: %s\n", what, detail.c_str());
  std::abort();
}

/// Valid UTF-8 with nothing hidden (gpubench/escape.hpp): what every escaping layer must give.
bool visible_utf8(std::string_view s, bool layout = false) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80                 ? 1
                          : c >= 0xC2 && c <= 0xDF ? 2
                          : c >= 0xE0 && c <= 0xEF ? 3
                          : c >= 0xF0 && c <= 0xF4 ? 4
                                                   : 0;
    if (n == 0 || i + n > s.size()) return false;
    char32_t cp = n == 1 ? c : c & (0xFF >> (n + 1));
    for (std::size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    if (gpubench::hidden_code_point(cp) && !(layout && (cp == '\n' || cp == '\t'))) return false;
    i += n;
  }
  return true;
}

bool parses_as_json(const std::string& text) { return !ojson::parse(text, nullptr, false).is_discarded(); }

/// The escaping layers on raw bytes: each gives what its output kind needs.
void fuzz_escaping(std::string_view in) {
  if (!visible_utf8(gpubench::visible_text(in))) bug("visible_text", "hidden or invalid output");
  if (!visible_utf8(gpubench::terminal_text(in))) bug("terminal_text", "hidden or invalid output");
  if (!visible_utf8(gpubench::replace_hidden(in, true), true)) bug("replace_hidden", "hidden or invalid output");
  const std::string md = gpubench::markdown_text(in);
  for (std::size_t i = 0; i < md.size(); ++i) {
    if (md[i] == '\\') ++i;
    else if (std::string_view("`*~[]<>&|").find(md[i]) != std::string_view::npos) bug("markdown_text", md);
  }
  std::string csv = gpubench::csv_field(in);
  if (!csv.empty() && csv[0] == '"') csv.erase(0, 1);
  if (!csv.empty() && std::string_view("=+-@\t\r").find(csv[0]) != std::string_view::npos) bug("csv_field", csv);
  const std::string xml = gpubench::xml_text(in);
  if (!visible_utf8(xml) || xml.find_first_of("<>\"'") != std::string::npos) bug("xml_text", xml);
  if (gpubench::svg_label_text(in).find("]]>") != std::string::npos) bug("svg_label_text", "]]> kept");
  if (!parses_as_json(gpubench::json_text(ojson(std::string(in))))) bug("json_text", "not JSON");
}

/// Every output of an accepted profile, and compare against itself with repeated history.
void exercise_outputs(const gpubench::profile& p) {
  for (const auto rows : {gpubench::gbench_rows::aggregates, gpubench::gbench_rows::samples})
    if (!parses_as_json(gpubench::export_gbench(p, rows))) bug("export_gbench", "not JSON");
  if (!parses_as_json(gpubench::export_bmf(p))) bug("export_bmf", "not JSON");
  (void)gpubench::export_csv(p);
  (void)gpubench::export_markdown(p);
  gpubench::profile later = p;  // another run: every sample 1% slower
  for (auto& r : later.records)
    for (double& s : r.timing.samples_s) s *= 1.01;
  static std::FILE* const sink = std::fopen("/dev/null", "w");
  try {
    const gpubench::comparison c =
        gpubench::compare_profiles(p, p, {}, "a", "b", {later, later, later}, {"h", "h", "h"});
    bool timed = false;  // a run with a timed record: then the second and third copies add nothing
    for (const auto& r : p.records)
      timed = timed || (r.status == gpubench::record_status::passed && !r.timing.samples_s.empty());
    if (timed && c.history_rested_differently == 0 && c.history_runs != 1)
      bug("compare", "a history run given three times counted more than once");
    if (sink != nullptr) gpubench::print_comparison(sink, c, {});
    if (!parses_as_json(gpubench::json_text(gpubench::comparison_json(c)))) bug("comparison_json", "not JSON");
    (void)gpubench::comparison_markdown(c);
    if (!visible_utf8(gpubench::comparison_junit(c), true)) bug("comparison_junit", "hidden or invalid output");
  } catch (const gpubench::error&) {
    // expected: e.g. a profile with no records is refused
  }
}

void fuzz_profile(std::string_view in) {
  gpubench::profile p;
  try {
    p = gpubench::profile_from_json(gpubench::parse_strict_json(in, "fuzz"), "fuzz");
  } catch (const gpubench::error&) {
    return;  // expected: refused with a message
  }
  // An accepted profile must survive being written and read back: the writer and the reader agree.
  try {
    const gpubench::profile again = gpubench::profile_from_json(gpubench::to_json(p), "fuzz (round trip)");
    if (again.records.size() != p.records.size()) bug("round trip", "the record count changed");
    (void)gpubench::to_json(p).dump();  // throws on text nlohmann cannot write (invalid UTF-8)
  } catch (const std::exception& e) {
    bug("an accepted profile does not read back after to_json", e.what());
  }
  for (const auto& r : p.records)
    for (double s : r.timing.samples_s)
      if (!(s >= 1e-9) || !std::isfinite(s)) bug("accepted profile", "a sample is shorter than 1 ns or not finite");
  exercise_outputs(p);
}

/// The ceilings cache, read from a file where a run would look for it: never throws.
void fuzz_ceilings_cache(std::string_view in) {
  static const std::filesystem::path dir = [] {
    char tmpl[] = "/tmp/gpubench_fuzz_cache_XXXXXX";
    const char* made = ::mkdtemp(tmpl);
    ::setenv("GPUBENCH_CACHE_DIR", made != nullptr ? made : "/tmp", 1);
    return std::filesystem::path(made != nullptr ? made : "/tmp");
  }();
  gpubench::device_info d;
  d.uuid = "GPU-fuzz";
  std::ofstream(dir / "ceilings-GPU-fuzz.json", std::ios::binary | std::ios::trunc)
      .write(in.data(), static_cast<std::streamsize>(in.size()));
  std::string problem;
  (void)gpubench::load_cached_ceilings(d, &problem);
}

struct reader {
  const char* name;
  void (*run)(std::string_view);
};
constexpr reader kReaders[] = {
    {"profile", fuzz_profile},
    {"ceilings cache", fuzz_ceilings_cache},
    {"escaping layers", fuzz_escaping},
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  for (const reader& r : kReaders) {
    try {
      r.run(in);
    } catch (const gpubench::error&) {
      // A reader's refusal that escaped its function: still the expected kind.
    } catch (const std::exception& e) {
      bug(r.name, std::string("threw something other than gpubench::error: ") + e.what());
    }
  }
  return 0;
}
