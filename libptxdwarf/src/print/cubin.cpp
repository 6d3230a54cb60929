#include "ptxdwarf/print/cubin.h"

#include <cinttypes>
#include <cstdio>

#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/cubin/line_program.h"
#include "ptxdwarf/cubin/regmap.h"

namespace ptxdwarf::print {

using namespace cubin;

namespace {

std::span<const uint8_t> bytesOf(const ptx::Module& m, std::string_view name) {
  const SectionImage* s = sectionOrSuffixed(m, name);
  return s ? std::span<const uint8_t>(s->bytes) : std::span<const uint8_t>();
}

void appendf(std::string& out, const char* format, auto... args) {
  char buf[256];
  const int n = std::snprintf(buf, sizeof buf, format, args...);
  if (n > 0) out.append(buf, std::min<size_t>(static_cast<size_t>(n), sizeof buf - 1));
}

void appendPrologue(const LineHeader& h, std::string& out) {
  appendf(out, "debug_line[0x%8.8" PRIx64 "]\n", h.offset);
  out += "Line table prologue:\n";
  appendf(out, "    total_length: 0x%8.8" PRIx64 "\n", h.unitLength);
  out += "          format: DWARF32\n";
  appendf(out, "         version: %u\n", unsigned{h.version});
  appendf(out, " prologue_length: 0x%8.8" PRIx64 "\n", h.headerLength);
  appendf(out, " min_inst_length: %u\n", unsigned{h.minInstLength});
  if (h.version >= 4) appendf(out, "max_ops_per_inst: %u\n", unsigned{h.maxOpsPerInst});
  appendf(out, " default_is_stmt: %u\n", h.defaultIsStmt ? 1u : 0u);
  appendf(out, "       line_base: %d\n", int{h.lineBase});
  appendf(out, "      line_range: %u\n", unsigned{h.lineRange});
  appendf(out, "     opcode_base: %u\n", unsigned{h.opcodeBase});
  for (size_t i = 0; i < h.includeDirectories.size(); ++i) {
    appendf(out, "include_directories[%3zu] = \"", i + 1);
    out += h.includeDirectories[i];
    out += "\"\n";
  }
  for (size_t i = 0; i < h.files.size(); ++i) {
    const LineFile& f = h.files[i];
    appendf(out, "file_names[%3zu]:\n           name: \"", i + 1);
    out += f.name;
    appendf(out, "\"\n      dir_index: %" PRIu64 "\n       mod_time: 0x%8.8" PRIx64 "\n         length: 0x%8.8" PRIx64 "\n",
            f.directory, f.modTime, f.length);
  }
  if (h.inlineNamesBase)
    appendf(out, "NVIDIA inlined function names at .debug_str+0x%x\n", *h.inlineNamesBase);
}

void appendRowText(const LineRow& r, std::string& out) {
  appendf(out, "0x%16.16" PRIx64 " %6u %6u %6u %3u %13u ", r.address, r.line, r.column, r.file, 0u, 0u);
  if (r.isStmt) out += " is_stmt";
  if (r.endSequence) out += " end_sequence";
  out += "\n";
}

void appendStackText(const LineTable& t, const LineRow& r, const ShownInlineStack& stack, std::string& out) {
  const LineHeader& h = t.header;
  for (const InlineFrame& f : stack.frames) {
    out += "                   inlined: ";
    out += f.function.empty() ? std::string_view("<unnamed>") : f.function;
    out += " at ";
    out += h.filePath(f.callFile);
    appendf(out, ":%u:%u\n", f.callLine, f.callColumn);
  }
  if (stack.omitted) appendf(out, "                   (%u more inline frames)\n", stack.omitted);
  if (stack.broken) out += "                   inlined: <the call site row is not before this row: not decoded>\n";
  // Where cuda-gdb, counting the repeated rows ptxas does not, takes another row for the context.
  if (r.cudaGdbCallSite == r.callSite) return;
  if (r.cudaGdbCallSite == LineRow::kNoRow) {
    appendf(out, "                   cuda-gdb: no row %u in this sequence\n", r.context);
    return;
  }
  const LineRow& site = t.rows[r.cudaGdbCallSite];
  out += "                   cuda-gdb: called at ";
  out += h.filePath(site.file);
  appendf(out, ":%u:%u (it counts repeated rows)\n", site.line, site.column);
}

void tablesText(const ptx::Module& m, std::string_view section, bool withInlining, std::string& out) {
  const std::span<const uint8_t> bytes = bytesOf(m, section);
  const std::span<const uint8_t> str = bytesOf(m, ".debug_str");
  out += "\n";
  out += section;
  out += " contents:\n";
  for (const LineTable& t : decodeLinePrograms(bytes)) {
    appendPrologue(t.header, out);
    if (!t.rows.empty()) {
      out += "\nAddress            Line   Column File   ISA Discriminator Flags\n";
      out += "------------------ ------ ------ ------ --- ------------- -------------\n";
    }
    for (size_t i = 0; i < t.rows.size(); ++i) {
      appendRowText(t.rows[i], out);
      if (!withInlining || t.rows[i].context == 0) continue;
      appendStackText(t, t.rows[i], shownInlineStack(t, i, str), out);
    }
    for (const std::string& p : t.problems) out += "not decoded: " + p + "\n";
    out += "\n";
  }
}

// A source position's members, as every position in these tables spells them.
void positionFields(uint32_t file, uint32_t line, uint32_t column, JsonWriter& w) {
  w.field("file", file);
  w.field("line", line);
  w.field("column", column);
}

void inlineStackJson(const LineTable& t, const LineRow& r, const ShownInlineStack& stack, JsonWriter& w) {
  w.key("inlined_at");
  w.arrayBegin();
  for (const InlineFrame& f : stack.frames) {
    w.objectBegin();
    w.field("function", f.function);
    positionFields(f.callFile, f.callLine, f.callColumn, w);
    w.objectEnd();
  }
  w.arrayEnd();
  if (stack.omitted) w.field("inline_frames_omitted", stack.omitted);
  if (stack.broken) {
    w.key("inlined_at_decoded");
    w.boolean(false);
  }
  if (r.cudaGdbCallSite == r.callSite) return;
  w.key("cuda_gdb_call_site");
  if (r.cudaGdbCallSite == LineRow::kNoRow) return w.null();
  const LineRow& site = t.rows[r.cudaGdbCallSite];
  w.objectBegin();
  positionFields(site.file, site.line, site.column, w);
  w.objectEnd();
}

void rowJson(const LineTable& t, size_t row, bool withInlining, std::span<const uint8_t> str, JsonWriter& w) {
  const LineRow& r = t.rows[row];
  w.objectBegin();
  w.field("address", r.address);
  positionFields(r.file, r.line, r.column, w);
  w.key("is_stmt");
  w.boolean(r.isStmt);
  if (r.endSequence) {
    w.key("end_sequence");
    w.boolean(true);
  }
  if (withInlining && r.context != 0) inlineStackJson(t, r, shownInlineStack(t, row, str), w);
  w.objectEnd();
}

void stringsJson(std::string_view key, const std::vector<std::string>& strings, JsonWriter& w) {
  w.key(key);
  w.arrayBegin();
  for (const std::string& s : strings) w.value(s);
  w.arrayEnd();
}

void tableJson(const LineTable& t, bool withInlining, std::span<const uint8_t> str, JsonWriter& w) {
  const LineHeader& h = t.header;
  w.objectBegin();
  w.field("offset", h.offset);
  w.field("version", h.version);
  stringsJson("include_directories", h.includeDirectories, w);
  w.key("files");
  w.arrayBegin();
  for (size_t i = 0; i < h.files.size(); ++i) {
    w.objectBegin();
    w.field("index", i + 1);
    w.field("name", h.files[i].name);
    w.field("directory", h.files[i].directory);
    w.field("path", h.filePath(i + 1));
    w.objectEnd();
  }
  w.arrayEnd();
  w.key("rows");
  w.arrayBegin();
  for (size_t i = 0; i < t.rows.size(); ++i) rowJson(t, i, withInlining, str, w);
  w.arrayEnd();
  stringsJson("problems", t.problems, w);
  w.objectEnd();
}

void tablesJson(const ptx::Module& m, std::string_view section, std::string_view key, bool withInlining,
                JsonWriter& w) {
  const std::span<const uint8_t> str = bytesOf(m, ".debug_str");
  w.key(key);
  w.arrayBegin();
  for (const LineTable& t : decodeLinePrograms(bytesOf(m, section))) tableJson(t, withInlining, str, w);
  w.arrayEnd();
}

}  // namespace

void cubinLineTablesText(const ptx::Module& m, std::string& out) { tablesText(m, ".debug_line", true, out); }

void cubinLineTablesJson(const ptx::Module& m, JsonWriter& w) { tablesJson(m, ".debug_line", "line_tables", true, w); }

void sassLinesText(const ptx::Module& m, std::string& out) { tablesText(m, ".nv_debug_line_sass", false, out); }

void sassLinesJson(const ptx::Module& m, JsonWriter& w) { tablesJson(m, ".nv_debug_line_sass", "sass_lines", false, w); }

void regMapText(const ptx::Module& m, std::string& out) {
  const RegMap map = decodeRegMap(bytesOf(m, ".nv_debug_info_reg_sass"));
  out += "\n.nv_debug_info_reg_sass contents:\n";
  for (const RegMapFunction& f : map.functions) {
    out += "Function: ";
    out += f.name;
    appendf(out, " (%zu entries)\n", f.entries.size());
    for (const RegMapEntry& e : f.entries) {
      appendf(out, "\t%10.*s (idx: %u) -> ", static_cast<int>(e.reg.size()), e.reg.data(), e.piece & 3);
      const std::string sass = sassLocation(e.location);
      appendf(out, "%-14s (0x%x), range 0x%08x - 0x%08x", sass.c_str(), e.location, e.start, e.end);
      if (!e.usableByCudaGdb()) out += "  (cuda-gdb skips it: not a `%` name of at most 8 bytes)";
      out += "\n";
    }
  }
  if (!map.problem.empty()) out += "not decoded: " + map.problem + "\n";
}

void regMapJson(const ptx::Module& m, JsonWriter& w) {
  const RegMap map = decodeRegMap(bytesOf(m, ".nv_debug_info_reg_sass"));
  w.key("regmap");
  w.arrayBegin();
  for (const RegMapFunction& f : map.functions) {
    for (const RegMapEntry& e : f.entries) {
      w.objectBegin();
      w.field("function", f.name);
      w.field("register", e.reg);
      w.field("piece", e.piece);
      w.field("loc", e.location);
      w.field("class", className(e.classCode()));
      w.field("sass", sassLocation(e.location));
      w.field("start", e.start);
      w.field("end", e.end);
      w.objectEnd();
    }
  }
  w.arrayEnd();
  w.field("entries", map.entryCount());
  if (!map.problem.empty()) w.field("problem", map.problem);
}

}  // namespace ptxdwarf::print
