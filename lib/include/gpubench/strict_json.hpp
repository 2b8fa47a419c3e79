#pragma once
/// JSON from outside gpubench, parsed so that it cannot lie or exhaust the machine: every reader
/// of a profile, a --history run or the ceilings cache parses through here
/// (docs/profile-schema.md, "Reading untrusted input"). CUDA-free.
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpubench {

struct strict_json_limits {
  /// Deepest nesting of arrays and objects; a profile nests 10 levels at most (options: 8 below
  /// the top level).
  int max_depth = 64;
  /// What the parsed document may occupy in memory, estimated as it grows (64 bytes per array or
  /// object, 32 per array element, 64 per object member, plus long strings); 0 = 8 bytes per byte
  /// of text, with at least 64 MiB. The profiles gpubench writes need 1.5 to 4 (6 written without
  /// indentation); a document of empty arrays ("[[],[],...") would need 32: it is refused first.
  std::size_t max_memory_bytes = 0;
};

/// Parses `text` as one JSON document into an ordered_json (object keys in file order). Refuses,
/// with usage_error (exit 2) naming `source` and where: a syntax error (line and column, and
/// whether the text ends early), a key that appears twice in one object (JSON leaves that
/// undefined; nlohmann would keep the last one silently), nesting deeper than limits.max_depth,
/// a number beyond the range of a double (1e999), and a document that would need more memory than
/// limits.max_memory_bytes. Objects are built without nlohmann's per-key search, so a document with
/// a million keys in one object parses in linear time.
nlohmann::ordered_json parse_strict_json(std::string_view text, const std::string& source,
                                         const strict_json_limits& limits = {});

}  // namespace gpubench
