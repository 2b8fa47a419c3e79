#pragma once
/// Checks for text that comes from outside gpubench (profiles others made, file names): names
/// follow the registry's rule, and free text is bounded and free of control characters, so a
/// hostile profile cannot carry megabytes of text or terminal escapes into a console, a report
/// or a gnuplot script (docs/profile-schema.md, "Validation").
#include <cstddef>
#include <string>
#include <string_view>

namespace gpubench::detail {

/// Longest pair, variant or axis name, and longest label value of a size axis.
inline constexpr std::size_t kMaxNameBytes = 64;
/// Longest short field: device name, uuid, host name, versions, units, clock source, ...
inline constexpr std::size_t kMaxShortTextBytes = 256;
/// Longest free text: a record's reason, a verification message, an argv entry, a kernel name.
inline constexpr std::size_t kMaxLongTextBytes = 4096;

/// Pair, variant and axis names: snake_case, [a-z0-9_]+, at most kMaxNameBytes (the rule the
/// registry enforces on what chapters declare, lib/src/registry/registry.cpp).
inline bool valid_name(std::string_view s) {
  if (s.empty() || s.size() > kMaxNameBytes) return false;
  for (const char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

/// A label value of a size axis ("h2d", "512x768x3072", "bf16"): [A-Za-z0-9_.+-]+, bounded.
inline bool valid_label(std::string_view s) {
  if (s.empty() || s.size() > kMaxNameBytes) return false;
  for (const char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
          c == '+' || c == '-'))
      return false;
  return true;
}

/// True for the bytes a terminal may act on: C0 controls (newline and tab included), DEL, and
/// the UTF-8 encoding of the C1 controls U+0080..U+009F (0xC2 0x80..0x9F; U+009B is a CSI).
inline bool control_at(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x20 || c == 0x7f) return true;
  return c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
         static_cast<unsigned char>(s[i + 1]) <= 0x9f;
}

/// What is wrong with free text from outside, or "" when nothing is.
inline std::string text_problem(std::string_view s, std::size_t max_bytes) {
  if (s.size() > max_bytes)
    return "is " + std::to_string(s.size()) + " bytes long; at most " + std::to_string(max_bytes) + " are allowed";
  for (std::size_t i = 0; i < s.size(); ++i)
    if (control_at(s, i)) return "contains a control character at byte " + std::to_string(i);
  return {};
}

/// What the writer stores for text it got from elsewhere (an exception's message, the command
/// line, the driver): control characters become spaces and the text is cut to `max_bytes` (at a
/// UTF-8 character boundary), so that every profile gpubench writes reads back.
inline std::string clean_text(std::string_view s, std::size_t max_bytes) {
  std::string out;
  out.reserve(s.size() < max_bytes ? s.size() : max_bytes);
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (control_at(s, i)) {
      if (static_cast<unsigned char>(s[i]) == 0xc2) ++i;  // both bytes of a C1 control
      out += ' ';
    } else {
      out += s[i];
    }
  }
  if (out.size() > max_bytes) {
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xc0) == 0x80) --cut;  // not inside a character
    out.resize(cut);
  }
  return out;
}

}  // namespace gpubench::detail
