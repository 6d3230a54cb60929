// Text and JSON for what a cubin holds beyond the DWARF the dump prints:
// its line tables (`.debug_line` with inline stacks, `.nv_debug_line_sass`),
// its register map (`.nv_debug_info_reg_sass`). The module is one
// cubin::read made. The text functions append to `out`; the JSON ones write
// members of the object `w` has open.
#pragma once

#include <string>

#include "ptxdwarf/print/json.h"
#include "ptxdwarf/ptx/module.h"

namespace ptxdwarf::print {

// `.debug_line` in llvm-dwarfdump's layout (prologue, then rows: address,
// line, column, file, ISA, discriminator, flags), each row inside inlined
// code followed by its inline stack (`inlined: FUNCTION at FILE:LINE:COL`,
// innermost first, at most 64 frames and `(N more inline frames)`), and
// where cuda-gdb reads the context as another row, the call site it shows
// (`cuda-gdb: called at FILE:LINE:COL`); where the table or the extension
// could not be decoded, a line saying so.
void cubinLineTablesText(const ptx::Module& cubin, std::string& out);
// "line_tables":[{"offset","version","include_directories","files","rows":[{"address","file","line",
// "column","is_stmt","end_sequence","inlined_at":[{"function","file","line","column"}],"inline_frames_omitted",
// "inlined_at_decoded","cuda_gdb_call_site":{"file","line","column"}}],"problems"}]
void cubinLineTablesJson(const ptx::Module& cubin, JsonWriter& w);

// `.nv_debug_line_sass`: SASS address -> line of the embedded PTX; the JSON
// member is "sass_lines", laid out as "line_tables" without inline stacks.
void sassLinesText(const ptx::Module& cubin, std::string& out);
void sassLinesJson(const ptx::Module& cubin, JsonWriter& w);

// `.nv_debug_info_reg_sass`, per function and entry: PTX register, piece,
// SASS location spelled as cuda-gdb names the registers, PC range.
void regMapText(const ptx::Module& cubin, std::string& out);
// "regmap":[{"function","register","piece","loc","class","sass","start","end"}],"entries":N[,"problem"]
void regMapJson(const ptx::Module& cubin, JsonWriter& w);

}  // namespace ptxdwarf::print
