// JSON parsed for readers that must not be fooled (gpubench/strict_json.hpp).
//
// nlohmann's own DOM parsers cannot be used as they are: they keep the last of two equal keys,
// they nest as deep as the text does (200 MB of '[' built 6.7 GB of empty arrays), and an
// ordered_json object looks each new key up among the keys before it, which is quadratic in the
// keys of one object. This SAX handler builds the same ordered_json while counting depth and the
// memory it has built, appends keys without the search, and finds repeated keys once per object
// (sorted, at its end).
#include "gpubench/strict_json.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "gpubench/error.hpp"

namespace gpubench {

namespace {

using ojson = nlohmann::ordered_json;
using object_vector = ojson::object_t::Container;  // ordered_map is a vector of (key, value) pairs

/// 1-based line and column of byte offset `byte` (nlohmann counts positions from 1).
std::string where_in(std::string_view text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// Rough costs of what the DOM holds, in bytes (a basic_json is 16; a vector element of an object
// is a key string and a value; containers and long strings are heap allocations; vectors grow by
// doubling, so an element may cost twice its size).
constexpr std::size_t kArrayElement = 32, kObjectMember = 64, kContainer = 64, kHeapString = 48;

class dom_builder final : public nlohmann::json_sax<ojson> {
 public:
  dom_builder(ojson& root, int max_depth, std::size_t budget) : root_(root), max_depth_(max_depth), budget_(budget) {}

  bool null() override { return put(ojson(nullptr)); }
  bool boolean(bool v) override { return put(ojson(v)); }
  bool number_integer(number_integer_t v) override { return put(ojson(v)); }
  bool number_unsigned(number_unsigned_t v) override { return put(ojson(v)); }
  bool number_float(number_float_t v, const string_t& /*text*/) override { return put(ojson(v)); }
  bool string(string_t& v) override { return charge_string(v.size()) && put(ojson(std::move(v))); }
  bool binary(binary_t& /*v*/) override { return put(ojson(nullptr)); }  // JSON text has no binary values

  bool start_object(std::size_t /*elements*/) override { return open(ojson::value_t::object); }
  bool key(string_t& k) override {
    if (!charge_string(k.size())) return false;
    key_ = std::move(k);
    return true;
  }
  bool end_object() override {
    // Keys in order, compared once sorted: a repeat sits next to its twin.
    const auto& members = static_cast<const object_vector&>(stack_.back()->get_ref<const ojson::object_t&>());
    std::vector<std::string_view> keys;
    keys.reserve(members.size());
    for (const auto& m : members) keys.emplace_back(m.first);
    std::sort(keys.begin(), keys.end());
    if (const auto twin = std::adjacent_find(keys.begin(), keys.end()); twin != keys.end()) {
      problem_ = path() + ": the key \"" + std::string(*twin) +
                 "\" appears twice in one object; JSON does not say which one counts, so the file is refused: "
                 "keep one of them";
      return false;
    }
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*elements*/) override { return open(ojson::value_t::array); }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/, const ojson::exception& ex) override {
    position_ = position;
    error_id_ = ex.id;
    error_text_ = ex.what();
    if (const auto* p = dynamic_cast<const ojson::parse_error*>(&ex)) position_ = p->byte;
    return false;
  }

  /// What was wrong when the parse stopped early from this handler ("" for a parser error).
  [[nodiscard]] const std::string& problem() const { return problem_; }
  [[nodiscard]] int error_id() const { return error_id_; }
  [[nodiscard]] std::size_t position() const { return position_; }
  [[nodiscard]] const std::string& error_text() const { return error_text_; }

 private:
  /// The JSON path of the innermost open value: each open container's last element is the next.
  [[nodiscard]] std::string path() const {
    std::string out;
    for (std::size_t i = 0; i + 1 < stack_.size(); ++i) {
      const ojson& c = *stack_[i];
      if (c.is_array()) out += "[" + std::to_string(c.size() - 1) + "]";
      else
        out += (out.empty() ? "" : ".") +
               static_cast<const object_vector&>(c.get_ref<const ojson::object_t&>()).back().first;
    }
    return out.empty() ? "top level" : out;
  }

  bool charge(std::size_t bytes) {
    used_ += bytes;
    if (used_ <= budget_) return true;
    problem_ = "holds more values than its size accounts for (its parsed form would pass " +
               std::to_string(budget_ >> 20) + " MiB in memory); this is not a file gpubench wrote";
    return false;
  }
  bool charge_string(std::size_t length) { return length < 16 || charge(kHeapString + length); }

  /// Adds `v` where the parse is: the root, the next element of the open array, or the member of
  /// the open object under the last key. Returns false when the memory budget is spent.
  bool put(ojson&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      last_ = &root_;
      return true;
    }
    ojson& top = *stack_.back();
    if (top.is_array()) {
      if (!charge(kArrayElement)) return false;
      auto& elements = top.get_ref<ojson::array_t&>();
      elements.push_back(std::move(v));
      last_ = &elements.back();
    } else {
      if (!charge(kObjectMember)) return false;
      auto& members = static_cast<object_vector&>(top.get_ref<ojson::object_t&>());
      members.emplace_back(std::move(key_), std::move(v));
      last_ = &members.back().second;
    }
    return true;
  }

  bool open(ojson::value_t type) {
    if (static_cast<int>(stack_.size()) >= max_depth_) {
      problem_ = "nests deeper than " + std::to_string(max_depth_) +
                 " levels of arrays and objects; a gpubench file nests about 10";
      return false;
    }
    if (!charge(kContainer) || !put(ojson(type))) return false;
    // A pointer into the parent's elements stays valid: nothing is added to the parent until
    // this container is closed.
    stack_.push_back(last_);
    return true;
  }

  ojson& root_;
  int max_depth_;
  std::size_t budget_;
  std::size_t used_ = 0;
  std::vector<ojson*> stack_;
  ojson* last_ = nullptr;
  std::string key_;
  std::string problem_;
  int error_id_ = 0;
  std::size_t position_ = 0;
  std::string error_text_;
};

}  // namespace

ojson parse_strict_json(std::string_view text, const std::string& source, const strict_json_limits& limits) {
  const std::size_t budget = limits.max_memory_bytes != 0
                                 ? limits.max_memory_bytes
                                 : std::max<std::size_t>(std::size_t{64} << 20, 8 * text.size());
  ojson root;
  dom_builder builder(root, limits.max_depth, budget);
  const bool ok = ojson::sax_parse(text.begin(), text.end(), &builder, nlohmann::json::input_format_t::json,
                                   /*strict=*/true, /*ignore_comments=*/false);
  if (ok) return root;
  if (!builder.problem().empty()) throw usage_error(source + ": " + builder.problem());
  const std::size_t at = builder.position();
  if (builder.error_id() == 406) {
    // nlohmann: "number overflow parsing '1e999'"; the token is the useful part.
    std::string token = builder.error_text();
    if (const auto q = token.find('\''); q != std::string::npos) token = token.substr(q);
    // The position is the token's end; its start is where a reader looks.
    const std::size_t start = at > token.size() - 2 ? at - (token.size() - 2) + 1 : at;
    throw usage_error(source + ": a number at " + where_in(text, start) + " is out of range: " + token +
                      " is beyond what a double holds (about ±1.8e308)");
  }
  // A file gpubench writes is replaced atomically, so one that ends early was cut by something
  // else (a copy, an editor); say so rather than leave the user to decode the parser's message.
  const bool truncated = at >= text.size();
  // nlohmann's text repeats the position after a "[json.exception...] parse error at" prefix.
  std::string detail = builder.error_text();
  if (const auto col = detail.find(", column "); col != std::string::npos)
    if (const auto colon = detail.find(": ", col); colon != std::string::npos) detail.erase(0, colon + 2);
  throw usage_error(source + ": not valid JSON at " + where_in(text, at) +
                    (truncated ? " (the file ends early: truncated?)" : "") + ": " + detail);
}

}  // namespace gpubench
