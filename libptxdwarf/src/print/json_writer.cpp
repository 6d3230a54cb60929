#include "ptxdwarf/print/json.h"

#include "ptxdwarf/format.h"

namespace ptxdwarf::print {

void JsonWriter::separate() {
  if (!hasElements_.empty()) {
    if (hasElements_.back()) out_ += ',';
    hasElements_.back() = true;
    if (indent_ > 0) {
      out_ += '\n';
      out_.append(hasElements_.size() * static_cast<size_t>(indent_), ' ');
    }
  }
  if (!pending_.empty()) {
    out_ += pending_;
    pending_ = {};
  }
}

void JsonWriter::beforeValue() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  separate();
}

void JsonWriter::close(char bracket) {
  const bool had = hasElements_.back();
  hasElements_.pop_back();
  if (indent_ > 0 && had) {
    out_ += '\n';
    out_.append(hasElements_.size() * static_cast<size_t>(indent_), ' ');
  }
  out_ += bracket;
}

void JsonWriter::objectBegin() {
  beforeValue();
  out_ += '{';
  hasElements_.push_back(false);
}

void JsonWriter::objectEnd() { close('}'); }

void JsonWriter::arrayBegin() {
  beforeValue();
  out_ += '[';
  hasElements_.push_back(false);
}

void JsonWriter::arrayEnd() { close(']'); }

void JsonWriter::key(std::string_view k) {
  separate();
  appendJsonString(out_, k);
  out_ += indent_ > 0 ? ": " : ":";
  afterKey_ = true;
}

void JsonWriter::value(uint64_t v) {
  beforeValue();
  appendDec(out_, v);
}

void JsonWriter::value(std::string_view v) {
  beforeValue();
  appendJsonString(out_, v);
}

void JsonWriter::signedValue(int64_t v) {
  beforeValue();
  appendSigned(out_, v);
}

void JsonWriter::boolean(bool v) {
  beforeValue();
  out_ += v ? "true" : "false";
}

void JsonWriter::null() {
  beforeValue();
  out_ += "null";
}

}  // namespace ptxdwarf::print
