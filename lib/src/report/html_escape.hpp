#pragma once
// Text from profiles (names, reasons, argv, host names, device names) inside an HTML report. The
// profile reader bounds and checks it (text/untrusted_text.hpp), but a report may be opened by
// someone other than whoever made the profile, so every string is escaped here as well, whatever
// the reader let through. CUDA-free.
#include <cstddef>
#include <string>
#include <string_view>

#include "gpubench/escape.hpp"

namespace gpubench::detail {

/// Safe as element text and as a quoted attribute value (either quote): & < > " ' and the
/// backquote (which old browsers took as an attribute delimiter) become character references.
/// What HTML cannot hold or a reader cannot see (controls other than tab and newline, bidi
/// overrides, zero-width characters, bytes that are not UTF-8: gpubench/escape.hpp, replace_hidden)
/// becomes U+FFFD, so nothing is silently dropped and nothing reorders the page's text.
inline std::string html_escape(std::string_view s) {
  const std::string text = replace_hidden(s, /*keep_layout=*/true);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '`': out += "&#96;"; break;
      default: out += c;
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
