// A small tag rewriter, enough for gnuplot's own SVG (tags, attributes in quotes, text, comments);
// anything else is refused rather than guessed at.
#include "report/svg_inline.hpp"

#include <cctype>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "gpubench/error.hpp"
#include "report/html_escape.hpp"
#include "report/svg_path.hpp"

namespace gpubench::detail {

namespace {

bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// gnuplot escapes the text it draws, so its SVG holds no markup of ours; these checks make sure
// of it before the figure goes into a page: nothing that runs or loads may come through.
[[noreturn]] void refuse(const std::string& what) {
  throw runtime_error("gnuplot's SVG holds " + what + ", which a report must not carry");
}

// One tag (from '<' to '>', exclusive), rewritten: ids prefixed (repeats numbered), references
// into the page prefixed, xmlns attributes dropped.
std::string rewrite_tag(std::string_view tag, std::string_view prefix, std::map<std::string, int>& seen) {
  std::size_t i = 0;
  std::string out;
  if (i < tag.size() && tag[i] == '/') out += tag[i++];
  const std::size_t name_start = i;
  while (i < tag.size() && !space(tag[i]) && tag[i] != '/') ++i;
  const std::string name(tag.substr(name_start, i - name_start));
  const std::string lname = lower(name);
  if (lname == "script" || lname == "foreignobject" || lname == "iframe" || lname == "image" || lname == "object" ||
      lname == "embed" || lname == "a")
    refuse("a <" + name + "> element");
  out += name;
  while (i < tag.size()) {
    while (i < tag.size() && space(tag[i])) ++i;
    if (i >= tag.size()) break;
    if (tag[i] == '/') {  // a self-closing tag's slash
      out += " /";
      ++i;
      continue;
    }
    const std::size_t attr_start = i;
    while (i < tag.size() && tag[i] != '=' && !space(tag[i]) && tag[i] != '/') ++i;
    const std::string attr(tag.substr(attr_start, i - attr_start));
    std::string value;
    char quote = 0;
    // gnuplot writes some attributes with spaces around '=' ("fill = 'rgb(...)'").
    std::size_t after = i;
    while (after < tag.size() && space(tag[after])) ++after;
    if (after < tag.size() && tag[after] == '=') {
      i = after + 1;
      while (i < tag.size() && space(tag[i])) ++i;
      if (i < tag.size() && (tag[i] == '"' || tag[i] == '\'')) {
        quote = tag[i];
        const std::size_t close = tag.find(quote, i + 1);
        if (close == std::string_view::npos) refuse("an unterminated attribute");
        value = tag.substr(i + 1, close - i - 1);
        i = close + 1;
      } else {
        const std::size_t v = i;
        while (i < tag.size() && !space(tag[i])) ++i;
        value = tag.substr(v, i - v);
      }
    }
    const std::string lattr = lower(attr);
    if (lattr.starts_with("xmlns")) continue;
    if (lattr.starts_with("on")) refuse("an event handler (" + attr + ")");
    if (lattr == "id") {
      value = std::string(prefix) + value;
      if (const int repeat = seen[value]++; repeat > 0) value += "-" + std::to_string(repeat + 1);
    } else if (lattr == "href" || lattr == "xlink:href") {
      if (!value.starts_with("#")) refuse("a link outside the page (" + attr + ")");
      value.insert(1, prefix);
    }
    for (std::size_t at = 0; (at = lower(value).find("url(", at)) != std::string::npos;) {
      std::size_t v = at + 4;
      while (v < value.size() && (space(value[v]) || value[v] == '\'' || value[v] == '"')) ++v;
      if (v >= value.size() || value[v] != '#') refuse("a url() outside the page");
      value.insert(v + 1, prefix);
      at = v + 1 + prefix.size();
    }
    if (lattr == "style" && lower(value).find("@import") != std::string::npos) refuse("an @import");
    // A tenth of a user unit: charts are drawn at most at their own size, so nothing visible moves.
    if (lattr == "d") value = simplify_polyline_path(value, 0.1);
    const char q = quote != 0 ? quote : '"';
    out += " " + attr;
    if (!value.empty() || quote != 0) out += std::string("=") + q + value + q;
  }
  return out;
}

bool blank(std::string_view text) {
  for (const char c : text)
    if (!space(c)) return false;
  return true;
}

// Text between tags: copied as it is, except that a run of white space holding a line break
// becomes that line break alone (gnuplot indents with tabs; SVG collapses white space in text
// anyway, so nothing drawn changes).
void append_text(std::string& out, std::string_view text) {
  if (!text.empty() && blank(text) && text.find('\n') != std::string_view::npos) out += '\n';
  else out += text;
}

// gnuplot wraps nearly every line, tick and label in a group with the same six presentation
// attributes; on a page of a hundred charts those came to a quarter of its bytes. Four of them are
// always the same and go into the page's style sheet as class "gl" (html_style.cpp); the colour
// and the width stay. A class sets what the attributes set, inherited the same way, so nothing
// drawn changes.
std::string compact_group(const std::string& tag) {
  static const std::string head = "g fill=\"none\" color=\"", mid = "\" stroke=\"currentColor\" stroke-width=\"",
                           tail = "\" stroke-linecap=\"butt\" stroke-linejoin=\"miter\"";
  if (!tag.starts_with(head) || !tag.ends_with(tail)) return tag;
  const std::size_t color_end = tag.find('"', head.size());
  if (color_end == std::string::npos || tag.compare(color_end, mid.size(), mid) != 0) return tag;
  const std::string color = tag.substr(head.size(), color_end - head.size());
  const std::size_t width_start = color_end + mid.size();
  if (width_start > tag.size() - tail.size()) return tag;
  const std::string width = tag.substr(width_start, tag.size() - tail.size() - width_start);
  if (color.find_first_of("\"'<>") != std::string::npos || width.find_first_of("\"'<> ") != std::string::npos)
    return tag;
  return "g class=\"gl\" color=\"" + color + "\" stroke-width=\"" + width + "\"";
}

// The <defs> gnuplot writes hold every point symbol and two text filters, used or not: each item
// (one self-closing tag, or a <filter> block) that nothing outside <defs> refers to, directly or
// through another kept item, is dropped.
std::string drop_unused_defs(const std::string& svg) {
  const std::size_t open = svg.find("<defs>"), close = svg.find("</defs>");
  if (open == std::string::npos || close == std::string::npos || close < open) return svg;
  struct item {
    std::string text, id;
  };
  std::vector<item> items;
  const std::string body = svg.substr(open + 6, close - open - 6);
  for (std::size_t i = 0; i < body.size();) {
    const std::size_t lt = body.find('<', i);
    if (lt == std::string::npos) break;
    const bool filter = body.compare(lt, 7, "<filter") == 0;
    std::size_t end = filter ? body.find("</filter>", lt) : body.find("/>", lt);
    if (end == std::string::npos) return svg;  // not gnuplot's shape: leave it alone
    end += filter ? 9 : 2;
    item it{body.substr(lt, end - lt), ""};
    const std::size_t id = it.text.find(" id=");
    if (id != std::string::npos && id + 5 < it.text.size()) {
      const char q = it.text[id + 4];
      it.id = it.text.substr(id + 5, it.text.find(q, id + 5) - id - 5);
    }
    items.push_back(std::move(it));
    i = end;
  }
  const auto refers = [](const std::string& text, const std::string& id) {
    for (const char* after : {"'", "\"", ")"})
      if (text.find("#" + id + after) != std::string::npos) return true;
    return false;
  };
  const std::string outside = svg.substr(0, open) + svg.substr(close);
  std::vector<bool> keep(items.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t k = 0; k < items.size(); ++k) {
      if (keep[k]) continue;
      bool used = items[k].id.empty() || refers(outside, items[k].id);
      for (std::size_t o = 0; o < items.size() && !used; ++o) used = keep[o] && refers(items[o].text, items[k].id);
      if (used) keep[k] = changed = true;
    }
  }
  std::string defs;
  for (std::size_t k = 0; k < items.size(); ++k)
    if (keep[k]) defs += "\n" + items[k].text;
  return svg.substr(0, open) + "<defs>" + defs + "\n" + svg.substr(close);
}

// Tags rewritten, text and comments copied as they are (text that gnuplot drew from a profile,
// say a device name holding "url(#x)", stays exactly as it was). Groups with nothing inside are
// dropped unless they have an id: gnuplot opens and closes a style group around every plot whether
// it draws in it or not, and on a page of many charts those came to a tenth of the bytes.
std::string scope_ids(std::string_view s, std::string_view prefix) {
  std::string out;
  out.reserve(s.size() + s.size() / 20);
  std::map<std::string, int> seen;
  // Each open <g>: where its tag starts and ends in `out`, and whether it may go (no id: nothing
  // can refer to it).
  struct open_group {
    std::size_t start, content;
    bool droppable;
  };
  std::vector<open_group> open_groups;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t open = s.find('<', i);
    append_text(out, s.substr(i, open == std::string_view::npos ? std::string_view::npos : open - i));
    if (open == std::string_view::npos) break;
    if (s.substr(open, 4) == "<!--") {
      const std::size_t close = s.find("-->", open + 4);
      if (close == std::string_view::npos) refuse("an unterminated comment");
      i = close + 3;  // comments are dropped: nobody reads them in a page
      continue;
    }
    if (s.substr(open, 2) == "<!" || s.substr(open, 2) == "<?") refuse("a declaration or CDATA section inside <svg>");
    // The tag's end: the first '>' outside quotes.
    std::size_t j = open + 1;
    for (char quote = 0; j < s.size() && (quote != 0 || s[j] != '>'); ++j)
      if (quote == 0 && (s[j] == '"' || s[j] == '\'')) quote = s[j];
      else if (s[j] == quote) quote = 0;
    if (j >= s.size()) refuse("an unterminated tag");
    const std::string tag = rewrite_tag(s.substr(open + 1, j - open - 1), prefix, seen);
    i = j + 1;
    const bool group_open = tag.starts_with("g") && (tag.size() == 1 || space(tag[1])) && !tag.ends_with("/");
    if (tag == "/g" && !open_groups.empty()) {
      const open_group g = open_groups.back();
      open_groups.pop_back();
      if (g.droppable && blank(std::string_view(out).substr(g.content))) {
        out.erase(g.start);
        continue;
      }
    }
    const std::string compact = compact_group(tag);
    if (group_open)
      open_groups.push_back({out.size(), out.size() + compact.size() + 2, tag.find(" id=") == std::string::npos});
    out += "<" + compact + ">";
  }
  return out;
}

}  // namespace

std::string inline_svg(std::string_view svg, std::string_view prefix, std::string_view title, std::string_view css_class) {
  std::size_t start = svg.find("<svg");
  while (start != std::string_view::npos && start + 4 < svg.size() && !space(svg[start + 4]) && svg[start + 4] != '>')
    start = svg.find("<svg", start + 4);
  const std::size_t end = svg.rfind("</svg>");
  if (start == std::string_view::npos || end == std::string_view::npos || end < start)
    throw runtime_error("gnuplot wrote no <svg> element");
  std::string out = drop_unused_defs(scope_ids(svg.substr(start, end + 6 - start), prefix));
  const std::size_t root_end = out.find('>');
  std::string root = out.substr(0, root_end);
  while (!root.empty() && (space(root.back()) || root.back() == '/')) root.pop_back();
  root += " role=\"img\" aria-label=\"" + html_escape(title) + "\" class=\"" + html_escape(css_class) + "\">";
  std::string body = out.substr(root_end + 1);
  const std::string gnuplot_title = "<title>Gnuplot</title>";
  if (const std::size_t t = body.find(gnuplot_title); t != std::string::npos)
    body.replace(t, gnuplot_title.size(), "<title>" + html_escape(title) + "</title>");
  else
    body.insert(0, "\n<title>" + html_escape(title) + "</title>");
  return root + body;
}

double svg_view_width(std::string_view svg) {
  const std::size_t at = svg.find("viewBox=");
  if (at == std::string_view::npos || at + 9 >= svg.size()) return 0;
  double x = 0, y = 0, w = 0;
  const std::string value(svg.substr(at + 9, svg.find(svg[at + 8], at + 9) - (at + 9)));
  return std::sscanf(value.c_str(), "%lf %lf %lf", &x, &y, &w) == 3 && w > 0 ? w : 0;
}

}  // namespace gpubench::detail
