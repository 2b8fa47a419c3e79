#pragma once
// Text from profiles (names, reasons, argv, host names, device names) inside an HTML report. The
// profile reader bounds and checks it (text/untrusted_text.hpp), but a report may be opened by
// someone other than whoever made the profile, so every string is escaped here as well, whatever
// the reader let through. CUDA-free.
#include <cstddef>
#include <string>
#include <string_view>

namespace gpubench::detail {

/// Safe as element text and as a quoted attribute value (either quote): & < > " ' and the
/// backquote (which old browsers took as an attribute delimiter) become character references.
/// C0 controls other than tab and newline, DEL and the C1 controls (UTF-8 0xC2 0x80..0x9F) are
/// not allowed in HTML text at all: each becomes U+FFFD, so nothing is silently dropped.
inline std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '`': out += "&#96;"; break;
      case '\t': case '\n': out += static_cast<char>(c); break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\xEF\xBF\xBD";
        } else if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
                   static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
          out += "\xEF\xBF\xBD";
          ++i;  // both bytes of the C1 control
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

/// Part of an element id (and of the '#' link to it) made from a name: [A-Za-z0-9_-] kept,
/// anything else becomes '_'. Pair names already follow [a-z0-9_] (the reader enforces it); this
/// keeps an id one token whatever a name holds.
inline std::string html_id(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s)
    out += ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_') ? c : '_';
  return out;
}

}  // namespace gpubench::detail
