// Checking the PTX a producer assembled. write::Program::assemble writes the
// text and knows nothing of the rules; these functions, above both, read the
// text back (ptx::read, read::decode) and run every `ptxdump check` rule on it:
//
//   write::Assembled m = check::assembleAndCheck(p, &b.unit(), {.filename = "saxpy.ptx"});
//   EXPECT_FALSE(m.diagnostics.hasErrors());
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "ptxdwarf/check/check.h"
#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/write/program.h"

namespace ptxdwarf::check {

// The reader's diagnostics of `ptx`, then, when it reads, check::run's.
// `filename` names the text (ptx::read).
Diagnostics checkText(std::string_view ptx, std::string_view filename = "<assembled>", const Options& options = {});

struct AssembleCheckOptions {
  write::AssembleOptions assemble = {};
  Options check = {};
  std::string filename = "<assembled>";  // names the text in the check's diagnostics
};

// Program::assemble, then checkText on the module it wrote: Assembled::
// diagnostics holds the assembly's diagnostics followed by the check's. When
// the program cannot be assembled (Assembled::written() is false) nothing is
// checked.
write::Assembled assembleAndCheck(const write::Program& program, std::span<const write::Unit* const> units,
                                  const AssembleCheckOptions& options = {});
write::Assembled assembleAndCheck(const write::Program& program, const write::Unit* unit,
                                  const AssembleCheckOptions& options = {});

}  // namespace ptxdwarf::check
