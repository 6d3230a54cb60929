#include "ptxdwarf/format.h"

namespace ptxdwarf {

namespace {
constexpr char kHexDigits[] = "0123456789abcdef";
bool isPrintableAscii(unsigned char c) { return c >= 0x20 && c < 0x7f; }
}  // namespace

void appendEscaped(std::string& out, std::string_view s) {
  for (unsigned char c : s) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '"':
        out += "\\\"";
        break;
      default:
        if (isPrintableAscii(c)) {
          out += static_cast<char>(c);
        } else {
          out += '\\';
          out += static_cast<char>('0' + ((c >> 6) & 7));
          out += static_cast<char>('0' + ((c >> 3) & 7));
          out += static_cast<char>('0' + (c & 7));
        }
    }
  }
}

void appendJsonString(std::string& out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\u00";
          out += kHexDigits[c >> 4];
          out += kHexDigits[c & 15];
        } else if (c >= 0x80) {
          // Bytes of DWARF strings are not guaranteed to be UTF-8: each is
          // written as the code point U+00XX, which keeps the document valid.
          out += "\\u00";
          out += kHexDigits[c >> 4];
          out += kHexDigits[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

std::string escaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  appendEscaped(out, s);
  return out;
}

void appendUnprintableEscaped(std::string& out, std::string_view s) {
  size_t run = 0;  // start of the printable run not yet appended
  for (size_t i = 0; i < s.size(); ++i) {
    if (isPrintableAscii(static_cast<unsigned char>(s[i]))) continue;
    out.append(s.substr(run, i - run));
    appendEscaped(out, s.substr(i, 1));
    run = i + 1;
  }
  out.append(s.substr(run));
}

}  // namespace ptxdwarf
