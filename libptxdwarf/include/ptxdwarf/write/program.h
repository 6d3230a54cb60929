// A whole PTX module from a producer: its code with `.loc` lines and labels
// written as it goes, the `.file` table, and the DWARF of one or more units,
// assembled into text ptxas accepts:
//
//   .version / .target / .address_size      (from ProgramOptions)
//   .file 1 "..."                           (module scope, before any function)
//   <the producer's code>
//   .section .debug_info { ... } ...        (after the code; .debug_str for
//                                            the function_name strings)
//
//   write::Program p({.version = {7, 5, true}, .target = "sm_80"});
//   unsigned main = p.files().add("/src/app/main.cu");
//   p.code() += ".visible .entry k()\n{\n";
//   write::Labels::Function f = p.beginFunction();   // writes `$L__func_begin0:`
//   p.loc({main, 3, 5});                             // writes `.loc 1 3 5`
//   p.code() += "\tret;\n";
//   p.endFunction();                                 // writes `$L__func_end0:`
//   p.code() += "}\n";
//   write::Builder b;  ... .declFile = main, .lowPc = SymbolRef{f.begin} ...
//   write::Assembled m = p.assemble(&b.unit());
//
// assemble() only writes; check::assembleAndCheck (ptxdwarf/check/assembled.h)
// also reads the result back and runs every check rule on it. See
// docs/library.md for a complete producer.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/write/encode.h"
#include "ptxdwarf/write/line_table.h"
#include "ptxdwarf/write/ptx_writer.h"
#include "ptxdwarf/write/unit.h"

namespace ptxdwarf::write {

struct ProgramOptions {
  ptx::Version version{7, 5, true};  // labels in sections need 7.0, function_name/inlined_at 7.2
  std::string target = "sm_80";      // the operands of `.target` ("sm_90, debug")
  unsigned addressSize = 64;         // 32 or 64
  bool flattenInlined = false;       // see LineOptions::flattenInlined
  std::string labelPrefix = "$L__";  // see Labels
};

struct AssembleOptions {
  Style style = Style::packed;
  EncodeOptions encode = {};
};

struct Assembled {
  // The module; empty when it could not be assembled (diagnostics say why).
  std::string ptx = {};
  // Errors that stopped assembly, else the writer's warnings (and, from
  // check::assembleAndCheck, what the check found).
  Diagnostics diagnostics = {};
  bool written() const { return !ptx.empty(); }
};

class Program {
 public:
  explicit Program(ProgramOptions options = {});
  Program(const Program&) = delete;  // the emitter refers to the file table and the labels
  Program& operator=(const Program&) = delete;

  FileTable& files() { return files_; }
  const FileTable& files() const { return files_; }
  Labels& labels() { return labels_; }
  LineEmitter& lines() { return lines_; }
  const LineEmitter& lines() const { return lines_; }
  const ProgramOptions& options() const { return options_; }

  // The producer's PTX after the module header: variables, functions. It must
  // not write `.version`, `.target`, `.address_size` or `.file` itself.
  std::string& code() { return code_; }
  const std::string& code() const { return code_; }

  // Starts a function's code: writes `$L__func_beginN:` here (after the
  // register declarations, where the first instruction follows) and forgets
  // the previous function's locations. Returns the begin and end labels.
  Labels::Function beginFunction();
  // Writes the end label of the function begun last (after its last instruction).
  const std::string& endFunction();
  // Writes a fresh label here (a scope's or a location-list range's boundary:
  // it takes the position of the next instruction) and returns its name.
  std::string label();
  // Writes `name` (from labels().temporary(), for a label referred to before
  // the code reaches it, such as a forward branch target) here.
  void place(std::string_view name);
  // The `.loc` line(s) for the next instruction (LineEmitter::loc).
  size_t loc(SourcePos pos, std::span<const InlinedCall> inlined = {});

  // The complete module: header, `.file` table, code, then the units' debug
  // sections and the `.debug_str` of the function_name strings, ending in a
  // newline. Errors (a DW_AT_decl_file/DW_AT_call_file id the file table does
  // not have, encoder or writer errors, a header directive in the code) leave
  // Assembled::ptx empty.
  Assembled assemble(std::span<const Unit* const> units, const AssembleOptions& options = {}) const;
  Assembled assemble(const Unit* unit, const AssembleOptions& options = {}) const;

 private:
  ProgramOptions options_;
  FileTable files_;
  Labels labels_;
  LineEmitter lines_;
  std::string code_;
  Labels::Function function_;
  bool inFunction_ = false;
};

}  // namespace ptxdwarf::write
