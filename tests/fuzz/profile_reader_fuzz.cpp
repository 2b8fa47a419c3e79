/// libFuzzer target for the profile reader (docs/profile-schema.md, "Fuzzing the reader").
///
/// The reader's contract: any input either becomes a profile or is rejected with a
/// gpubench::error (exit code 2, naming the JSON path). Anything else — another exception type,
/// a crash, an ASan or UBSan report — is a bug. The JSON parser runs without exceptions, as
/// read_profile would see the text after its own parse succeeded. A profile that loads must also
/// keep the reader's promises (positive samples), write back to text, and go through `compare`
/// against itself and its console view without anything but a gpubench::error.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <exception>

#include <nlohmann/json.hpp>

#include "gpubench/compare.hpp"
#include "gpubench/console.hpp"
#include "gpubench/error.hpp"
#include "gpubench/profile.hpp"

namespace {

[[noreturn]] void bug(const char* what, const char* detail) {
  std::fprintf(stderr, "profile reader bug: %s: %s\n", what, detail);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto j = nlohmann::ordered_json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  gpubench::profile p;
  try {
    p = gpubench::profile_from_json(j, "fuzz");
  } catch (const gpubench::error&) {
    return 0;  // expected: rejected with a message
  } catch (const std::exception& e) {
    bug("profile_from_json threw something other than gpubench::error", e.what());
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
      if (!(s > 0) || !std::isfinite(s)) bug("accepted profile", "a sample is not positive and finite");
  static std::FILE* const sink = std::fopen("/dev/null", "w");
  try {
    const gpubench::comparison c = gpubench::compare_profiles(p, p, {});
    if (sink != nullptr) gpubench::print_comparison(sink, c, {});
  } catch (const gpubench::error&) {
    // expected: e.g. a profile with no records is refused
  } catch (const std::exception& e) {
    bug("compare of an accepted profile threw something other than gpubench::error", e.what());
  }
  return 0;
}
