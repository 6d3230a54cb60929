#include "ptxdwarf/cubin/print.h"

#include <cinttypes>
#include <cstdio>

#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/cubin/line_program.h"
#include "ptxdwarf/cubin/regmap.h"
#include "ptxdwarf/format.h"

namespace ptxdwarf::cubin {

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

void appendTablesText(const ptx::Module& m, std::string_view section, bool withInlining, std::string& out) {
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

void appendTablesJson(const ptx::Module& m, std::string_view section, bool withInlining, std::string& out) {
  const std::span<const uint8_t> bytes = bytesOf(m, section);
  const std::span<const uint8_t> str = bytesOf(m, ".debug_str");
  out += "[";
  bool firstTable = true;
  for (const LineTable& t : decodeLinePrograms(bytes)) {
    const LineHeader& h = t.header;
    out += firstTable ? "" : ",";
    firstTable = false;
    appendf(out, "{\"offset\":%" PRIu64 ",\"version\":%u,\"include_directories\":[", h.offset, unsigned{h.version});
    for (size_t i = 0; i < h.includeDirectories.size(); ++i) {
      if (i) out += ",";
      appendJsonString(out, h.includeDirectories[i]);
    }
    out += "],\"files\":[";
    for (size_t i = 0; i < h.files.size(); ++i) {
      appendf(out, "%s{\"index\":%zu,\"name\":", i ? "," : "", i + 1);
      appendJsonString(out, h.files[i].name);
      appendf(out, ",\"directory\":%" PRIu64 ",\"path\":", h.files[i].directory);
      appendJsonString(out, h.filePath(i + 1));
      out += "}";
    }
    out += "],\"rows\":[";
    for (size_t i = 0; i < t.rows.size(); ++i) {
      const LineRow& r = t.rows[i];
      appendf(out, "%s{\"address\":%" PRIu64 ",\"file\":%u,\"line\":%u,\"column\":%u,\"is_stmt\":%s", i ? "," : "",
              r.address, r.file, r.line, r.column, r.isStmt ? "true" : "false");
      if (r.endSequence) out += ",\"end_sequence\":true";
      if (withInlining && r.context != 0) {
        const ShownInlineStack stack = shownInlineStack(t, i, str);
        out += ",\"inlined_at\":[";
        for (size_t k = 0; k < stack.frames.size(); ++k) {
          const InlineFrame& f = stack.frames[k];
          out += k ? ",{\"function\":" : "{\"function\":";
          appendJsonString(out, f.function);
          appendf(out, ",\"file\":%u,\"line\":%u,\"column\":%u}", f.callFile, f.callLine, f.callColumn);
        }
        out += "]";
        if (stack.omitted) appendf(out, ",\"inline_frames_omitted\":%u", stack.omitted);
        if (stack.broken) out += ",\"inlined_at_decoded\":false";
        if (r.cudaGdbCallSite != r.callSite) {
          out += ",\"cuda_gdb_call_site\":";
          if (r.cudaGdbCallSite == LineRow::kNoRow) {
            out += "null";
          } else {
            const LineRow& site = t.rows[r.cudaGdbCallSite];
            appendf(out, "{\"file\":%u,\"line\":%u,\"column\":%u}", site.file, site.line, site.column);
          }
        }
      }
      out += "}";
    }
    out += "],\"problems\":[";
    for (size_t i = 0; i < t.problems.size(); ++i) {
      if (i) out += ",";
      appendJsonString(out, t.problems[i]);
    }
    out += "]}";
  }
  out += "]";
}

}  // namespace

void appendLineTableText(const ptx::Module& m, std::string& out) { appendTablesText(m, ".debug_line", true, out); }

void appendLineTableJsonMembers(const ptx::Module& m, std::string& out) {
  out += "\"line_tables\":";
  appendTablesJson(m, ".debug_line", true, out);
}

void appendSassLinesText(const ptx::Module& m, std::string& out) {
  appendTablesText(m, ".nv_debug_line_sass", false, out);
}

void appendSassLinesJsonMembers(const ptx::Module& m, std::string& out) {
  out += "\"sass_lines\":";
  appendTablesJson(m, ".nv_debug_line_sass", false, out);
}

void appendRegMapText(const ptx::Module& m, std::string& out) {
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

void appendRegMapJsonMembers(const ptx::Module& m, std::string& out) {
  const RegMap map = decodeRegMap(bytesOf(m, ".nv_debug_info_reg_sass"));
  out += "\"regmap\":[";
  bool first = true;
  for (const RegMapFunction& f : map.functions) {
    for (const RegMapEntry& e : f.entries) {
      out += first ? "{\"function\":" : ",{\"function\":";
      first = false;
      appendJsonString(out, f.name);
      out += ",\"register\":";
      appendJsonString(out, e.reg);
      appendf(out, ",\"piece\":%u,\"loc\":%u,\"class\":", e.piece, e.location);
      appendJsonString(out, className(e.classCode()));
      out += ",\"sass\":";
      appendJsonString(out, sassLocation(e.location));
      appendf(out, ",\"start\":%u,\"end\":%u}", e.start, e.end);
    }
  }
  appendf(out, "],\"entries\":%zu", map.entryCount());
  if (!map.problem.empty()) {
    out += ",\"problem\":";
    appendJsonString(out, map.problem);
  }
}

}  // namespace ptxdwarf::cubin
