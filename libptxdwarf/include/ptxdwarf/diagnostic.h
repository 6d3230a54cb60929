// One diagnostic type for every stage: reader, decoder, checker.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxdwarf {

// A position in a PTX file; line and column count from 1, 0 means unknown.
struct SourceLoc {
  uint32_t line = 0;
  uint32_t col = 0;
  friend bool operator==(const SourceLoc&, const SourceLoc&) = default;
};

enum class Severity : uint8_t { note, warning, error };

struct Diagnostic {
  Severity severity = Severity::error;
  SourceLoc loc{};
  std::string message{};
  std::string rule{};      // e.g. "ref-target"; empty for reader errors
  std::string section{};   // e.g. ".debug_info"; empty when not about a section byte
  int64_t offset = -1;     // offset in `section`, -1 when not applicable

  // "file:line:col: error: message [rule]" (compiler style); without a line,
  // "file: .debug_info+0x1c: error: ..." when the section is known, else
  // "file: error: ...".
  std::string format(std::string_view file) const;
};

std::string_view severityName(Severity s);

// Collects diagnostics; stages append, callers decide what to print.
struct Diagnostics {
  std::vector<Diagnostic> items{};

  Diagnostic& error(SourceLoc loc, std::string message);
  Diagnostic& warning(SourceLoc loc, std::string message);
  size_t errorCount() const;
  size_t warningCount() const;
  bool hasErrors() const { return errorCount() != 0; }
};

}  // namespace ptxdwarf
