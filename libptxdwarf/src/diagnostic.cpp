#include "ptxdwarf/diagnostic.h"

#include <cstdio>

#include "ptxdwarf/format.h"

namespace ptxdwarf {

std::string_view severityName(Severity s) {
  switch (s) {
    case Severity::note: return "note";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "error";
}

std::string Diagnostic::format(std::string_view file) const {
  std::string out(file);
  if (loc.line != 0) {
    out += ':';
    out += std::to_string(loc.line);
    out += ':';
    out += std::to_string(loc.col);
  } else if (!section.empty()) {
    // No PTX line (sections a producer encoded have none): the section offset
    // is the position.
    out += ": ";
    out += section;
    if (offset >= 0) {
      char buf[24];
      std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(offset));
      out += buf;
    }
  }
  out += ": ";
  out += severityName(severity);
  out += ": ";
  // Messages quote names from the file (a DW_AT_name, a `.file` path): a
  // control byte in one must not start a line of its own nor drive the terminal.
  appendUnprintableEscaped(out, message);
  if (!rule.empty()) {
    out += " [";
    out += rule;
    out += ']';
  }
  return out;
}

Diagnostic& Diagnostics::error(SourceLoc loc, std::string message) {
  return items.emplace_back(Diagnostic{Severity::error, loc, std::move(message), {}, {}, -1});
}

Diagnostic& Diagnostics::warning(SourceLoc loc, std::string message) {
  return items.emplace_back(Diagnostic{Severity::warning, loc, std::move(message), {}, {}, -1});
}

size_t Diagnostics::errorCount() const {
  size_t n = 0;
  for (const auto& d : items) n += d.severity == Severity::error;
  return n;
}

size_t Diagnostics::warningCount() const {
  size_t n = 0;
  for (const auto& d : items) n += d.severity == Severity::warning;
  return n;
}

}  // namespace ptxdwarf
