#include "ptxdwarf/format.h"

#include <charconv>

namespace ptxdwarf {

namespace {
constexpr char kHexDigits[] = "0123456789abcdef";
bool isPrintableAscii(unsigned char c) { return c >= 0x20 && c < 0x7f; }
}  // namespace

void appendHexDigits(std::string& out, uint64_t v, int width) {
  char buf[16];
  int n = 0;
  do {
    buf[n++] = kHexDigits[v & 15];
    v >>= 4;
  } while (v);
  for (int i = n; i < width; ++i) out += '0';
  while (n) out += buf[--n];
}

void appendHex(std::string& out, uint64_t v, int width) {
  out += "0x";
  appendHexDigits(out, v, width);
}

void appendDec(std::string& out, uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void appendSigned(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

std::string hex(uint64_t v, int width) {
  std::string out;
  appendHex(out, v, width);
  return out;
}

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
