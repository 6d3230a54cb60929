// The one JSON writer of the printing layer: objects, arrays, keys, the commas
// between them and string escaping (format.h's appendJsonString), appended to a
// std::string that a streaming caller may empty between elements. Compact by
// default; with an indent, laid out as llvm::json::OStream lays it out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxdwarf::print {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out, int indent = 0) : out_(out), indent_(indent) {}

  void objectBegin();
  void objectEnd();
  void arrayBegin();
  void arrayEnd();
  // A member's key; its value (or objectBegin/arrayBegin) comes next.
  void key(std::string_view k);

  void value(uint64_t v);
  void value(std::string_view v);
  void signedValue(int64_t v);
  void boolean(bool v);
  void null();

  // key + value.
  template <typename T>
  void field(std::string_view k, const T& v) {
    key(k);
    value(v);
  }
  // key + value, or null where there is none.
  template <typename T>
  void field(std::string_view k, const std::optional<T>& v) {
    key(k);
    if (v) value(*v);
    else null();
  }

  // Layout: `text` (a newline, spaces) goes before the next element of the
  // enclosing container, after the comma that separates it from the one before.
  void breakBefore(std::string_view text) { pending_ = text; }

 private:
  void beforeValue();
  void separate();
  void close(char bracket);

  std::string& out_;
  int indent_;
  std::vector<bool> hasElements_;  // one per open object or array
  bool afterKey_ = false;
  std::string_view pending_;
};

}  // namespace ptxdwarf::print
