// The text dump (ptxdump dump): llvm-dwarfdump 14's layout, line for line.
//
// For every value ptxas does not relocate, the .debug_info dump of a PTX file
// prints exactly what `llvm-dwarfdump --debug-info x.cubin` prints for the
// cubin `ptxas -g` makes of it. Sections appear in llvm-dwarfdump's order:
// .debug_abbrev, .debug_info, .debug_loc, .debug_aranges, .debug_str,
// .debug_pubnames, each introduced by "\n.<name> contents:\n"; a selected
// section that the PTX does not have prints its header only. The first line,
// like llvm-dwarfdump's "<file>:\tfile format elf64-unknown", is
// "<file>:\tfile format ptx".
//
// Where the PTX says more than the cubin, we print more -- only here:
//
//  1. DW_AT_decl_file / DW_AT_call_file are resolved through the PTX `.file`
//     table, as llvm-dwarfdump resolves them through the line table ptxas
//     builds from it: ("/src/call.cu"). A relative name is joined to the unit's
//     DW_AT_comp_dir with '/' (`.file 1 "call.cu"` + comp_dir "/home/x" ->
//     "/home/x/call.cu"); an absolute name is printed as written. An index the
//     `.file` table lacks, or a unit without DW_AT_stmt_list, prints the raw
//     value (0x05) as llvm-dwarfdump does.
//  2. DW_AT_address_class is followed by the CUDA address-class name:
//     (0x02 ADDR_reg_space) where llvm-dwarfdump prints (0x02). Values outside
//     the 12 CUDA classes print as llvm-dwarfdump prints them.
//  3. DW_OP_regx / DW_OP_bregx whose register operand is a packed PTX register
//     name print the name: "DW_OP_regx %r1", "DW_OP_bregx %rd2 +8"
//     (llvm-dwarfdump: "DW_OP_regx 0x257231").
//  4. Relocated values -- operands that were symbols in the PTX, whose bytes
//     ptxas fills in -- print as the PTX operand expression (symbol, `+N`/`-N`
//     decimal addend, `A-B` label differences), never as the zero bytes:
//       DW_AT_low_pc     (func_begin0)        DW_AT_high_pc (func_end0)
//       DW_AT_stmt_list  (.debug_line)        DW_OP_addr _Z4testPi_param_0
//       DW_AT_location   (.debug_loc+138: ...) for a relocated list offset
//       location-list entries [$L__tmp1, $L__tmp3): DW_OP_regx %r1
//       --debug-loc raw entries ($L__func_begin0, $L__tmp2): DW_OP_regx %rd8
//     Consequently `DW_OP_addr __local_depot0` is shown as the PTX writes it
//     (ptxas rewrites it into DW_OP_fbreg + DW_OP_nop padding in the cubin).
//     A computed address whose parts are symbolic prints as
//     "<base>+<entry>" (list entries with a non-zero base address, DW_AT_high_pc
//     as an offset from a relocated DW_AT_low_pc, aranges ends): "Lfunc_begin0+0x40".
//     An entry `A-B` under a base address `B` prints as `A`.
//     Header fields that are relocations against a debug section
//     (`.b32 .debug_abbrev`, `.b32 .debug_info` in unit, pubnames and aranges
//     headers) print the offset the relocation resolves to, exactly as
//     llvm-dwarfdump shows it: abbr_offset = 0x0000.
//
// Everything else follows LLVM 14 (DWARFDie.cpp, DWARFFormValue.cpp,
// DWARFExpression.cpp, DWARFDebugLoc.cpp, DWARFCompileUnit.cpp,
// DWARFDebugAbbrev.cpp, DWARFDebugArangeSet.cpp, DWARFDebugPubTable.cpp,
// DWARFContext.cpp), including its type-name printer (`"const char *"`,
// `"int[32]"`, `"int (*)(int)"`, `"geo::Vec3"`, template arguments) and its
// odd corners (`(0x01)` flags, "dead code" for a tombstone low_pc, a
// DW_FORM_data4 DW_AT_location read as a location list, "<empty>" for an empty
// expression, "<decoding error> 01 02" after an undecodable op, `DW_AT_language
// (0x9999)` for an unknown language, a decl_file index outside the `.file`
// table printed raw). Deliberate differences, both where llvm-dwarfdump 14 has
// no defined behaviour:
//  - the type-name printer stops after 64 nested type references (and 4096 steps
//    per name), where llvm-dwarfdump recurses until it crashes on a reference cycle;
//  - a DW_FORM_sdata DW_AT_decl_line/call_line prints its signed value (-3),
//    where llvm-dwarfdump dereferences an empty Optional and prints 0.
// Verified against llvm-dwarfdump 14.0.6 with tools/compare_llvm_dwarfdump.py.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <regex>

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/print/dump.h"
#include "ptxdwarf/print/line.h"
#include "ptxdwarf/print/render.h"

namespace ptxdwarf::print {

using read::AttrValue;
using read::Die;
using read::Dwarf;
using read::kNone;
using read::Unit;

// ---------------------------------------------------------------------------
// The text dump

namespace {

class TextDumper {
 public:
  TextDumper(const ptx::Module& m, const Dwarf& d, const DumpOptions& o, std::string& out, const Sink& sink)
      : d_(d), out_(out), sink_(sink), r_(m, d, [this] { drain(); }), recurseDepth_(o.recurseDepth),
        showForm_(o.showForm) {}

  // With a sink, hands it what has been rendered once it fills a chunk: the
  // dump of a large file never sits whole in memory, and the buffer is reused.
  void drain(bool always = false) {
    constexpr size_t kChunk = size_t{1} << 20;
    if (!sink_ || (out_.size() < kChunk && !always)) return;
    sink_(out_);
    out_.clear();
  }

  void header(std::string_view name) {
    out_ += '\n';
    out_ += name;
    out_ += " contents:\n";
  }

  void abbrev() {
    header(".debug_abbrev");
    const SectionImage* s = d_.abbrev;
    if (!s || s->bytes.empty()) {
      out_ += "< EMPTY >\n";
      return;
    }
    // The decoder's tables, in section order (DWARFDebugAbbrev::dump).
    for (const read::AbbrevTable* t : d_.tablesInOrder()) {
      out_ += "Abbrev table for offset: ";
      appendHex(out_, t->offset, 8);
      out_ += '\n';
      for (const read::Abbrev& a : t->abbrevs) {
        out_ += '[';
        appendDec(out_, a.code);
        out_ += "] ";
        appendTagName(out_, a.tag);
        out_ += a.hasChildren ? "\tDW_CHILDREN_yes\n" : "\tDW_CHILDREN_no\n";
        for (const read::AttrSpec& sp : t->specsOf(a)) {
          out_ += '\t';
          appendAttrName(out_, sp.name);
          out_ += '\t';
          appendFormName(out_, sp.form);
          out_ += '\n';
        }
        out_ += '\n';
      }
    }
  }

  void info() {
    header(".debug_info");
    for (size_t ui = 0; ui < d_.units.size(); ++ui) unit(d_.units[ui]);
  }

  void unit(const Unit& u) {
    appendHex(out_, u.offset, 8);
    out_ += ": Compile Unit: length = ";
    appendHex(out_, u.length, 8);
    out_ += ", format = DWARF32, version = ";
    appendHex(out_, u.version, 4);
    out_ += ", abbr_offset = ";
    appendHex(out_, u.abbrevOffset, 4);
    if (u.abbrevTable == kNone) out_ += " (invalid)";
    out_ += ", addr_size = ";
    appendHex(out_, u.addressSize, 2);
    out_ += " (next unit at ";
    appendHex(out_, u.offset + 4 + u.length, 8);
    out_ += ")\n";
    if (u.dieCount == 0) {
      out_ += "<compile unit can't be parsed!>\n\n";
      return;
    }
    for (uint32_t i = u.firstDie; i < u.firstDie + u.dieCount; ++i) {
      const Die& die = d_.dies[i];
      if (die.isNull() && die.depth == 0) continue;  // padding after the unit DIE: llvm-dwarfdump stops there
      if (!die.isNull() && die.depth == 0 && i != u.firstDie) break;  // a second top-level DIE is never reached
      // -r N: the unit DIE is level 0; a NULL entry closes its siblings' level.
      if (die.depth > recurseDepth_) continue;
      dieLine(die, 2u * die.depth);
      drain();
    }
  }

  // --name: every DIE whose name or linkage name (found through abstract
  // origins and specifications) matches, each dumped on its own at indent 0
  // (llvm-dwarfdump's filterByName), nothing else.
  void selectedDies(const DumpOptions& o) {
    std::vector<std::regex> patterns;
    if (o.regex) {
      auto flags = std::regex::extended | (o.ignoreCase ? std::regex::icase : std::regex::flag_type{});
      for (const std::string& n : o.names) patterns.emplace_back(n, flags);
    }
    auto sameChar = [&](char a, char b) {
      if (!o.ignoreCase) return a == b;
      return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    };
    auto matches = [&](std::string_view name) {
      if (o.regex)
        return std::any_of(patterns.begin(), patterns.end(),
                           [&](const std::regex& re) { return std::regex_search(name.begin(), name.end(), re); });
      return std::any_of(o.names.begin(), o.names.end(),
                         [&](const std::string& n) { return std::ranges::equal(n, name, sameChar); });
    };
    for (const Die& die : d_.dies) {
      if (die.isNull()) continue;
      std::string_view shortName = view::shortName(d_, die);
      bool selected = !shortName.empty() && matches(shortName);
      if (!selected) {
        std::string_view linkage = view::linkageOrShortName(d_, die);
        selected = !linkage.empty() && matches(linkage);
      }
      if (!selected) continue;
      size_t indent = 0;
      if (o.showParents) indent = parentChain(die);
      dieTree(die, indent, o.showChildren ? recurseDepth_ : 0);
      drain();
    }
  }

  // The parents of `die`, outermost first, each one level deeper; returns the
  // indentation for `die` itself.
  size_t parentChain(const Die& die) {
    std::vector<const Die*> chain;
    for (const Die* p = d_.parentOf(die); p; p = d_.parentOf(*p)) chain.push_back(p);
    size_t indent = 0;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it, indent += 2) dieLine(**it, indent);
    return indent;
  }

  // `die` and, `depth` levels down, its children (each list closed by its NULL entry).
  void dieTree(const Die& die, size_t indent, uint32_t depth) {
    dieLine(die, indent);
    if (depth == 0 || !die.hasChildren) return;
    size_t first = static_cast<size_t>(&die - d_.dies.data()) + 1;
    for (size_t i = first; i < d_.dies.size() && d_.dies[i].depth > die.depth; ++i) {
      const Die& c = d_.dies[i];
      uint32_t level = c.depth - die.depth;
      if (level > depth) continue;
      dieLine(c, indent + 2u * level);
      if (c.isNull() && level == 1) break;
    }
  }

  void dieLine(const Die& die, size_t indent) {
    out_ += '\n';
    appendHex(out_, die.offset, 8);
    out_ += ": ";
    out_.append(indent, ' ');
    if (die.isNull()) {
      out_ += "NULL\n";
      return;
    }
    appendTagName(out_, die.tag);
    out_ += '\n';
    for (const AttrValue& v : d_.attributes(die)) {
      if (v.form == dw::DW_FORM_implicit_const) continue;
      out_.append(12 + indent + 2, ' ');
      appendAttrName(out_, v.name);
      if (showForm_) {
        out_ += " [";
        appendFormName(out_, v.form);
        out_ += ']';
      }
      out_ += "\t(";
      r_.attributeValue(out_, die, v, static_cast<int>(13 + indent + 4));
      out_ += ")\n";
    }
  }

  void loc() {
    header(".debug_loc");
    const SectionImage* s = d_.loc;
    if (!s || s->bytes.empty() || d_.units.empty()) return;
    uint8_t addressSize = d_.units[0].addressSize;
    uint64_t off = 0;
    bool first = true;
    LocListReader list;
    while (off < s->bytes.size()) {
      if (!first) out_ += '\n';
      first = false;
      appendHex(out_, off, 8);
      out_ += ": ";
      bool ok = list.read(s, addressSize, off);
      for (const LocEntryView e : list.entries()) {
        if (e.kind == LocEntryView::endOfList) break;
        out_ += "\n            (";
        // A base address selection entry begins with the largest address.
        const bool selection = e.kind == LocEntryView::baseAddress && !e.beginReloc;
        r_.address(out_, selection ? (addressSize == 4 ? 0xffffffffull : ~0ull) : e.begin, e.beginReloc, addressSize);
        out_ += ", ";
        r_.address(out_, e.end, e.endReloc, addressSize);
        out_ += ')';
        if (e.kind == LocEntryView::range) {
          out_ += ": ";
          r_.expression(out_, e.expr, s, e.exprOffset, addressSize);
        }
        drain();  // a list may hold tens of thousands of entries
      }
      out_ += '\n';
      drain();
      if (!ok) break;
    }
  }

  void aranges() {
    header(".debug_aranges");
    for (const auto& set : d_.arangeSets) {
      out_ += "Address Range Header: length = ";
      appendHex(out_, set.length, 8);
      out_ += ", format = DWARF32, version = ";
      appendHex(out_, set.version, 4);
      out_ += ", cu_offset = ";
      uint64_t cu = set.infoOffset;  // the decoder adds a `.debug_info+N` addend
      if (set.infoReloc && !d_.offsetIn(".debug_info", 0, set.infoReloc))
        appendReloc(out_, *set.infoReloc);
      else
        appendHex(out_, cu, 8);
      out_ += ", addr_size = ";
      appendHex(out_, set.addressSize, 2);
      out_ += ", seg_size = ";
      appendHex(out_, set.segmentSize, 2);
      out_ += '\n';
      for (const auto& r : set.ranges) {
        out_ += '[';
        r_.address(out_, r.address, r.addressReloc, set.addressSize);
        out_ += ", ";
        if (!r.addressReloc && !r.lengthReloc) {
          appendHex(out_, r.address + r.length, set.addressSize * 2);
        } else {
          r_.address(out_, r.address, r.addressReloc, set.addressSize);
          out_ += '+';
          if (r.lengthReloc)
            appendReloc(out_, *r.lengthReloc);
          else
            appendHex(out_, r.length);
        }
        out_ += ")\n";
      }
    }
  }

  void str() {
    header(".debug_str");
    const SectionImage* s = d_.str;
    if (!s) return;
    const auto& b = s->bytes;
    size_t off = 0;
    while (off < b.size()) {
      const uint8_t* begin = b.data() + off;
      const void* nul = std::memchr(begin, 0, b.size() - off);
      if (!nul) break;  // unterminated: llvm-dwarfdump warns and stops
      size_t len = static_cast<const uint8_t*>(nul) - begin;
      appendHex(out_, off, 8);
      out_ += ": \"";
      appendEscaped(out_, std::string_view(reinterpret_cast<const char*>(begin), len));
      out_ += "\"\n";
      off += len + 1;
    }
  }

  void pubnames() {
    header(".debug_pubnames");
    for (const auto& set : d_.pubnameSets) {
      out_ += "length = ";
      appendHex(out_, set.length, 8);
      out_ += ", format = DWARF32, version = ";
      appendHex(out_, set.version, 4);
      out_ += ", unit_offset = ";
      if (set.infoReloc && !d_.offsetIn(".debug_info", 0, set.infoReloc))
        appendReloc(out_, *set.infoReloc);
      else
        appendHex(out_, set.infoOffset, 8);
      out_ += ", unit_size = ";
      appendHex(out_, set.infoLength, 8);
      out_ += "\nOffset     Name\n";
      for (const auto& e : set.entries) {
        appendHex(out_, e.dieOffset, 8);
        out_ += " \"";
        appendEscaped(out_, e.name);
        out_ += "\"\n";
      }
    }
  }

 private:
  const Dwarf& d_;
  std::string& out_;
  const Sink& sink_;
  Renderer r_;
  const uint32_t recurseDepth_;  // -r
  const bool showForm_;          // --show-form
};

}  // namespace

void dumpText(const ptx::Module& module, const Dwarf& dwarf, const DumpOptions& options, std::string& out,
              const Sink& sink) {
  // About 20 bytes of text for each byte of .debug_info and .debug_loc.
  size_t expected = (dwarf.info ? dwarf.info->size() : 0) + (dwarf.loc ? dwarf.loc->size() : 0);
  out.reserve(out.size() + (sink ? size_t{1} << 21 : expected * 20) + 4096);
  out += module.filename;
  out += ":\tfile format ";
  out += module.fileFormat;
  out += "\n";
  TextDumper t(module, dwarf, options, out, sink);
  if (!options.names.empty()) {  // llvm-dwarfdump --name dumps the matching DIEs and nothing else
    t.selectedDies(options);
    t.drain(true);
    return;
  }
  if (options.abbrev) t.abbrev();
  if (options.info) t.info();
  if (options.loc) t.loc();
  if (options.aranges) t.aranges();
  if (options.line) lineTableText(module, out, [&t] { t.drain(); });
  if (options.str) t.str();
  if (options.pubnames) t.pubnames();
  t.drain(true);
}

bool validNamePatterns(const DumpOptions& options, std::string& error) {
  if (!options.regex) return true;
  for (const std::string& n : options.names) {
    try {
      std::regex re(n, std::regex::extended);
    } catch (const std::regex_error& e) {
      error = "error in regular expression '" + n + "': " + e.what();
      return false;
    }
  }
  return true;
}

}  // namespace ptxdwarf::print
