// ptxdump's JSON dump: the content of the text dump (dump_text.cpp) as one
// JSON object. Schema (keys in this order; a section key is present only when
// that section is selected in DumpOptions, "file" always):
//
// {
//   "file": "x.ptx",
//   "abbrev": [                                   // every table in .debug_abbrev, in order
//     {"offset": 0, "abbrevs": [
//       {"code": 1, "offset": 0, "tag": "DW_TAG_compile_unit", "children": true,
//        "attributes": [{"name": "DW_AT_producer", "form": "DW_FORM_string"}, ...]}]}],
//   "units": [                                    // .debug_info
//     {"offset": 0, "length": 262, "version": 2, "abbr_offset": 0, "addr_size": 8,
//      "next_unit": 266,
//      "dies": [                                  // the unit DIE; children nest
//        {"offset": 11, "code": 1, "tag": "DW_TAG_compile_unit",
//         "attributes": [ <attribute>, ... ],
//         "children": [ <die>, ... ]}]}],         // only for DIEs whose abbrev has children;
//                                                 // NULL entries are not listed
//   "loc": [ <loclist>, ... ],                    // .debug_loc read sequentially from 0
//   "aranges": [{"offset": 0, "length": 44, "version": 2, "unit_offset": 0,
//                "addr_size": 8, "seg_size": 0,
//                "unit_offset_symbol": ".debug_info", // when the field was a symbol expression
//                "ranges": [{"address": 0, "length": 9,
//                            "address_symbol": "f", "length_symbol": "e-f"}]}],
//   "str": [{"offset": 0, "string": "int"}],     // .debug_str
//   "pubnames": [{"offset": 0, "length": 41, "version": 2, "unit_offset": 0,
//                 "unit_offset_symbol": ".debug_info", "unit_size": 262,
//                 "entries": [{"offset": 69, "name": "_Z3fooii"}]}]
// }
//
// <attribute>:
//   {"name": "DW_AT_low_pc", "form": "DW_FORM_addr", "offset": 87,   // offset of the value bytes
//    "value": 0,            // number: constants, flags, addresses, section offsets,
//                           //   references (absolute .debug_info offsets); negative for sdata;
//                           // string: DW_FORM_string / strp contents;
//                           // absent for blocks (see "bytes")
//    "bytes": "9003",       // blocks / exprloc: the contents as lowercase hex
//    "symbol": "func_begin0",          // when the value bytes are a PTX symbol expression
//                                      // ("sym", "sym+8", "A-B"); "value" is then what the
//                                      // bytes hold (0), not the resolved address
//    "text": "func_begin0",            // exactly what the text dump prints between the
//                                      // parentheses (location lists: entries separated by
//                                      // "\n", without the text dump's indentation)
//    "file": "/src/x.cu",              // DW_AT_decl_file / call_file resolved via `.file`
//    "address_class": "ADDR_reg_space",// DW_AT_address_class with a CUDA class name
//    "type_name": "const char *",      // DW_AT_type: llvm-dwarfdump's name of the type
//    "expression": [ <op>, ... ],      // location expressions (blocks/exprloc)
//    "expression_error": "...",        // when the expression does not decode fully
//    "loclist": <loclist>}             // location-list references (.debug_loc)
// <op>:
//   {"offset": 0, "op": "DW_OP_regx", "operands": [2453041], "register": "%r1",
//    "symbol": "_Z4testPi_param_0", "text": "DW_OP_regx %r1"}
//   "operands" lists the operand values (signed ones as negative numbers; for
//   DW_OP_implicit_value the length, then "block": hex bytes); "register" appears
//   for DW_OP_regx/bregx with a packed PTX register name, "symbol" for relocated
//   operands.
// <loclist>:
//   {"offset": 236, "symbol": ".debug_loc+236",       // symbol: when the reference was relocated
//    "entries": [{"offset": 236, "kind": "range",      // "range" | "base_address"
//                 "begin": 0, "end": 0, "begin_symbol": "$L__tmp1", "end_symbol": "$L__tmp3",
//                 "expression": [ <op>, ... ], "text": "[$L__tmp1, $L__tmp3): DW_OP_regx %r1"}],
//    "complete": true}                                  // false: the section ends inside the list
//   "offset" is null when a relocated reference does not name .debug_loc.
//
// Numbers are written as exact decimal integers (64-bit values may exceed
// JavaScript's 2^53). Strings are escaped per RFC 8259; bytes >= 0x80 and
// control characters are written as \u00XX (DWARF strings are bytes, not
// necessarily UTF-8). The DIE tree is nested with an explicit stack, so any
// depth is fine.
#include <vector>

#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/print/dump.h"
#include "ptxdwarf/print/line.h"
#include "ptxdwarf/print/render.h"

namespace ptxdwarf::print {

using read::AttrValue;
using read::Die;
using read::Dwarf;
using read::Unit;

namespace {

class JsonDumper {
 public:
  JsonDumper(const ptx::Module& m, const Dwarf& d, std::string& out, const Sink& sink)
      : m_(m), d_(d), out_(out), sink_(sink), r_(m, d) {}

  // With a sink, hands it what has been rendered once it fills a chunk: the
  // JSON of a large file (hundreds of times the input when location lists are
  // shared) never sits whole in memory.
  void drain(bool always = false) {
    constexpr size_t kChunk = size_t{1} << 20;
    if (!sink_ || (out_.size() < kChunk && !always)) return;
    sink_(out_);
    out_.clear();
  }

  void key(std::string_view k) {
    out_ += '"';
    out_ += k;
    out_ += "\":";
  }
  void num(std::string_view k, uint64_t v) {
    key(k);
    appendDec(out_, v);
  }
  void str(std::string_view k, std::string_view v) {
    key(k);
    appendJsonString(out_, v);
  }
  void hexBytes(std::span<const uint8_t> bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    out_ += '"';
    for (uint8_t b : bytes) {
      out_ += digits[b >> 4];
      out_ += digits[b & 15];
    }
    out_ += '"';
  }
  void relocKey(std::string_view k, const Relocation* r) {
    if (!r) return;
    out_ += ',';
    key(k);
    scratch_.clear();
    appendReloc(scratch_, *r);
    appendJsonString(out_, scratch_);
  }

  void ops(std::span<const uint8_t> bytes, const SectionImage* section, uint64_t sectionOffset, uint8_t addressSize,
           bool withErrorKey) {
    auto e = read::decodeExpression(bytes, {addressSize, 4, section, sectionOffset});
    key("expression");
    out_ += '[';
    for (size_t i = 0; i < e.ops.size(); ++i) {
      const auto& op = e.ops[i];
      if (i) out_ += ',';
      out_ += '{';
      num("offset", op.offset);
      out_ += ',';
      str("op", dw::opName(op.op));
      out_ += ',';
      key("operands");
      out_ += '[';
      if (const dw::OpInfo* info = dw::opInfo(op.op)) {
        dw::OperandKind kinds[2] = {info->a, info->b};
        bool first = true;
        for (int s = 0; s < 2; ++s) {
          using K = dw::OperandKind;
          if (kinds[s] == K::none || kinds[s] == K::unknown) break;
          if (!first) out_ += ',';
          first = false;
          bool isSigned = kinds[s] == K::s8 || kinds[s] == K::s16 || kinds[s] == K::s32 || kinds[s] == K::s64 ||
                          kinds[s] == K::sleb;
          if (isSigned) appendSigned(out_, static_cast<int64_t>(op.operands[s]));
          else appendDec(out_, op.operands[s]);
        }
        out_ += ']';
        if (!op.block.empty()) {
          out_ += ',';
          key("block");
          hexBytes(op.block);
        }
      } else {
        out_ += ']';
      }
      if (op.op == dw::DW_OP_regx || op.op == dw::DW_OP_bregx) {
        if (auto reg = cuda::unpackRegister(op.operands[0])) {
          out_ += ',';
          str("register", *reg);
        }
      }
      relocKey("symbol", op.reloc);
      out_ += ',';
      scratch_.clear();
      r_.operation(scratch_, op, addressSize);
      str("text", scratch_);
      out_ += '}';
    }
    out_ += ']';
    if (withErrorKey && !e.ok) {
      out_ += ',';
      str("expression_error", e.error);
    }
  }

  // The list at `offset`, which is left after its last complete entry;
  // whether the list ends before the section does.
  bool locEntries(const SectionImage* s, uint64_t& offset, uint8_t addressSize, const Unit* unit) {
    LocListReader list;
    bool complete = list.read(s, addressSize, offset);
    key("entries");
    out_ += '[';
    bool first = true;
    for (const LocEntryView e : list.entries()) {
      if (e.kind == LocEntryView::endOfList) break;
      if (!first) out_ += ',';
      first = false;
      out_ += '{';
      num("offset", e.offset);
      out_ += ',';
      str("kind", e.kind == LocEntryView::range ? "range" : "base_address");
      out_ += ',';
      num("begin", e.begin);
      out_ += ',';
      num("end", e.end);
      relocKey("begin_symbol", e.beginReloc);
      relocKey("end_symbol", e.endReloc);
      if (e.kind == LocEntryView::range) {
        out_ += ',';
        ops(e.expr, s, e.exprOffset, addressSize, true);
        out_ += ',';
        scratch2_.clear();
        if (unit) {
          scratch2_ += '[';
          r_.listAddress(scratch2_, *unit, e.begin, e.beginReloc);
          scratch2_ += ", ";
          r_.listAddress(scratch2_, *unit, e.end, e.endReloc);
          scratch2_ += ')';
        } else {
          scratch2_ += '(';
          Renderer::address(scratch2_, e.begin, e.beginReloc, addressSize);
          scratch2_ += ", ";
          Renderer::address(scratch2_, e.end, e.endReloc, addressSize);
          scratch2_ += ')';
        }
        scratch2_ += ": ";
        r_.expression(scratch2_, e.expr, s, e.exprOffset, addressSize);
        str("text", scratch2_);
      }
      out_ += '}';
      drain();  // a list may hold tens of thousands of entries: megabytes of JSON
    }
    out_ += "],";
    key("complete");
    out_ += complete ? "true" : "false";
    return complete;
  }

  void attribute(const Die& die, const AttrValue& v) {
    const Unit& unit = d_.unitOf(die);
    out_ += '{';
    scratch_.clear();
    appendAttrName(scratch_, v.name);
    str("name", scratch_);
    out_ += ',';
    scratch_.clear();
    appendFormName(scratch_, v.form);
    str("form", scratch_);
    out_ += ',';
    num("offset", v.offset);
    if (v.isString()) {
      out_ += ',';
      str("value", v.string());
    } else if (v.isBlock()) {
      out_ += ',';
      key("bytes");
      hexBytes(v.block());
    } else if (v.form == dw::DW_FORM_sdata) {
      out_ += ',';
      key("value");
      appendSigned(out_, v.svalue());
    } else {
      out_ += ',';
      num("value", v.value);
    }
    relocKey("symbol", v.reloc);
    out_ += ',';
    scratch_.clear();
    r_.attributeValue(scratch_, die, v, -1);
    str("text", scratch_);
    if ((v.name == dw::DW_AT_decl_file || v.name == dw::DW_AT_call_file) && !v.reloc && !v.isBlock() &&
        !v.isString()) {
      scratch_.clear();
      if (r_.fileName(scratch_, unit, v.value)) {
        out_ += ',';
        str("file", scratch_);
      }
    } else if (v.name == dw::DW_AT_address_class && !v.reloc && v.isConstant()) {
      std::string_view cls = cuda::addressClassName(v.value);
      if (!cls.empty()) {
        out_ += ',';
        str("address_class", cls);
      }
    } else if (v.name == dw::DW_AT_type) {
      if (const Die* t = d_.referencedDie(v)) {
        scratch_.clear();
        r_.typeName(scratch_, t);
        out_ += ',';
        str("type_name", scratch_);
      }
    }
    if (Renderer::isLocationList(v)) {
      out_ += ',';
      key("loclist");
      out_ += '{';
      uint64_t offset = 0;
      bool known = r_.locOffset(v, offset);
      key("offset");
      if (known) appendDec(out_, offset);
      else out_ += "null";
      relocKey("symbol", v.reloc);
      if (known) {
        out_ += ',';
        locEntries(d_.loc, offset, unit.addressSize, &unit);
      }
      out_ += '}';
    } else if (Renderer::isLocationExpr(v)) {
      out_ += ',';
      ops(v.block(), d_.info, v.value, unit.addressSize, true);
    }
    out_ += '}';
  }

  // "offset", "code", "tag", "attributes" of a DIE (no braces).
  void dieFields(const Die& die) {
    num("offset", die.offset);
    out_ += ',';
    num("code", d_.abbrevCode(die));
    out_ += ',';
    scratch_.clear();
    appendTagName(scratch_, die.tag);
    str("tag", scratch_);
    out_ += ',';
    key("attributes");
    out_ += '[';
    bool first = true;
    for (const AttrValue& v : d_.attributes(die)) {
      if (!first) out_ += ',';
      first = false;
      attribute(die, v);
    }
    out_ += ']';
  }

  // A unit's header fields (no braces).
  void unitFields(const Unit& u) {
    num("offset", u.offset);
    out_ += ',';
    num("length", u.length);
    out_ += ',';
    num("version", u.version);
    out_ += ',';
    num("abbr_offset", u.abbrevOffset);
    out_ += ',';
    num("addr_size", u.addressSize);
    out_ += ',';
    num("next_unit", u.offset + 4 + u.length);
  }

  // json-lines: a line per unit, then a line per DIE with its unit, parent
  // and depth instead of nesting (NULL entries are not listed).
  void unitsAsLines() {
    for (const Unit& u : d_.units) {
      out_ += "{\"kind\":\"unit\",";
      unitFields(u);
      out_ += "}\n";
      for (uint32_t i = u.firstDie; i < u.firstDie + u.dieCount; ++i) {
        const Die& die = d_.dies[i];
        if (die.isNull()) continue;
        drain();
        out_ += "{\"kind\":\"die\",";
        num("unit", u.offset);
        out_ += ',';
        key("parent");
        if (const Die* p = d_.parentOf(die)) appendDec(out_, p->offset);
        else out_ += "null";
        out_ += ',';
        num("depth", die.depth);
        out_ += ',';
        dieFields(die);
        out_ += "}\n";
      }
    }
  }

  void units() {
    out_ += ',';
    key("units");
    out_ += '[';
    for (size_t ui = 0; ui < d_.units.size(); ++ui) {
      const Unit& u = d_.units[ui];
      if (ui) out_ += ',';
      out_ += '{';
      unitFields(u);
      out_ += ',';
      key("dies");
      out_ += '[';
      // Explicit stack of DIEs whose "children" array is open; needComma per level.
      std::vector<uint32_t> open;
      std::vector<bool> needComma{false};
      for (uint32_t i = u.firstDie; i < u.firstDie + u.dieCount; ++i) {
        const Die& die = d_.dies[i];
        if (die.isNull()) continue;
        drain();
        while (open.size() > die.depth) {
          out_ += "]}";
          open.pop_back();
          needComma.pop_back();
        }
        if (needComma.back()) out_ += ',';
        needComma.back() = true;
        out_ += '{';
        dieFields(die);
        if (die.hasChildren) {
          out_ += ',';
          key("children");
          out_ += '[';
          open.push_back(i);
          needComma.push_back(false);
        } else {
          out_ += '}';
        }
      }
      while (!open.empty()) {
        out_ += "]}";
        open.pop_back();
      }
      out_ += "]}";
    }
    out_ += ']';
  }

  void abbrev() {
    out_ += ',';
    key("abbrev");
    out_ += '[';
    bool firstSet = true;
    for (const read::AbbrevTable* t : d_.tablesInOrder()) {
      if (!firstSet) out_ += ',';
      firstSet = false;
      out_ += '{';
      num("offset", t->offset);
      out_ += ',';
      key("abbrevs");
      out_ += '[';
      bool firstDecl = true;
      for (const read::Abbrev& a : t->abbrevs) {
        if (!firstDecl) out_ += ',';
        firstDecl = false;
        out_ += '{';
        num("code", a.code);
        out_ += ',';
        num("offset", a.offset);
        out_ += ',';
        scratch_.clear();
        appendTagName(scratch_, a.tag);
        str("tag", scratch_);
        out_ += ',';
        key("children");
        out_ += a.hasChildren ? "true" : "false";
        out_ += ',';
        key("attributes");
        out_ += '[';
        bool firstSpec = true;
        for (const read::AttrSpec& sp : t->specsOf(a)) {
          if (!firstSpec) out_ += ',';
          firstSpec = false;
          out_ += '{';
          scratch_.clear();
          appendAttrName(scratch_, sp.name);
          str("name", scratch_);
          out_ += ',';
          scratch_.clear();
          appendFormName(scratch_, sp.form);
          str("form", scratch_);
          out_ += '}';
        }
        out_ += "]}";
      }
      out_ += "]}";
    }
    out_ += ']';
  }

  void loc() {
    out_ += ',';
    key("loc");
    out_ += '[';
    const SectionImage* s = d_.loc;
    if (s && !s->bytes.empty() && !d_.units.empty()) {
      uint8_t addressSize = d_.units[0].addressSize;
      uint64_t off = 0;
      bool first = true;
      while (off < s->bytes.size()) {
        if (!first) out_ += ',';
        first = false;
        out_ += '{';
        num("offset", off);
        out_ += ',';
        const bool complete = locEntries(s, off, addressSize, nullptr);  // read once, where a probe read it again
        out_ += '}';
        if (!complete) break;
      }
    }
    out_ += ']';
  }

  void aranges() {
    out_ += ',';
    key("aranges");
    out_ += '[';
    for (size_t i = 0; i < d_.arangeSets.size(); ++i) {
      const auto& set = d_.arangeSets[i];
      if (i) out_ += ',';
      out_ += '{';
      num("offset", set.offset);
      out_ += ',';
      num("length", set.length);
      out_ += ',';
      num("version", set.version);
      out_ += ',';
      num("unit_offset", set.infoOffset);
      relocKey("unit_offset_symbol", set.infoReloc);
      out_ += ',';
      num("addr_size", set.addressSize);
      out_ += ',';
      num("seg_size", set.segmentSize);
      out_ += ',';
      key("ranges");
      out_ += '[';
      for (size_t j = 0; j < set.ranges.size(); ++j) {
        const auto& r = set.ranges[j];
        if (j) out_ += ',';
        out_ += '{';
        num("address", r.address);
        out_ += ',';
        num("length", r.length);
        relocKey("address_symbol", r.addressReloc);
        relocKey("length_symbol", r.lengthReloc);
        out_ += '}';
      }
      out_ += "]}";
    }
    out_ += ']';
  }

  void strs() {
    out_ += ',';
    key("str");
    out_ += '[';
    if (const SectionImage* s = d_.str) {
      const auto& b = s->bytes;
      size_t off = 0;
      bool first = true;
      while (off < b.size()) {
        size_t end = off;
        while (end < b.size() && b[end]) ++end;
        if (end == b.size()) break;
        if (!first) out_ += ',';
        first = false;
        out_ += '{';
        num("offset", off);
        out_ += ',';
        str("string", std::string_view(reinterpret_cast<const char*>(b.data() + off), end - off));
        out_ += '}';
        off = end + 1;
      }
    }
    out_ += ']';
  }

  void pubnames() {
    out_ += ',';
    key("pubnames");
    out_ += '[';
    for (size_t i = 0; i < d_.pubnameSets.size(); ++i) {
      const auto& set = d_.pubnameSets[i];
      if (i) out_ += ',';
      out_ += '{';
      num("offset", set.offset);
      out_ += ',';
      num("length", set.length);
      out_ += ',';
      num("version", set.version);
      out_ += ',';
      num("unit_offset", set.infoOffset);
      relocKey("unit_offset_symbol", set.infoReloc);
      out_ += ',';
      num("unit_size", set.infoLength);
      out_ += ',';
      key("entries");
      out_ += '[';
      for (size_t j = 0; j < set.entries.size(); ++j) {
        if (j) out_ += ',';
        out_ += '{';
        num("offset", set.entries[j].dieOffset);
        out_ += ',';
        str("name", set.entries[j].name);
        out_ += '}';
      }
      out_ += "]}";
    }
    out_ += ']';
  }

  // The .file/.loc line table (line.cpp), streamed row by row.
  void line() {
    out_ += ',';
    lineTableJson(m_, out_, [this] { drain(); });
  }

  void run(const DumpOptions& o) {
    out_ += '{';
    str("file", m_.filename);
    if (o.abbrev) abbrev();
    if (o.info) units();
    if (o.loc) loc();
    if (o.aranges) aranges();
    if (o.line) line();
    if (o.str) strs();
    if (o.pubnames) pubnames();
    out_ += "}\n";
    drain(true);
  }

  // json-lines: {"kind":"file","file":...}, then each selected section as
  // one line {"kind":"abbrev","abbrev":[...]} (these nest a few levels at
  // most), except .debug_info: a line per unit and per DIE (unitsAsLines).
  void runAsLines(const DumpOptions& o) {
    out_ += "{\"kind\":\"file\",";
    str("file", m_.filename);
    out_ += "}\n";
    auto section = [&](std::string_view kind, void (JsonDumper::*render)()) {
      out_ += "{\"kind\":\"";
      out_ += kind;
      out_ += '"';
      (this->*render)();  // starts with ",\"<kind>\":"
      out_ += "}\n";
      drain();
    };
    if (o.abbrev) section("abbrev", &JsonDumper::abbrev);
    if (o.info) unitsAsLines();
    if (o.loc) section("loc", &JsonDumper::loc);
    if (o.aranges) section("aranges", &JsonDumper::aranges);
    if (o.line) section("line", &JsonDumper::line);
    if (o.str) section("str", &JsonDumper::strs);
    if (o.pubnames) section("pubnames", &JsonDumper::pubnames);
    drain(true);
  }

 private:
  const ptx::Module& m_;
  const Dwarf& d_;
  std::string& out_;
  const Sink& sink_;
  Renderer r_;
  std::string scratch_, scratch2_;
};

}  // namespace

void dumpJson(const ptx::Module& module, const Dwarf& dwarf, const DumpOptions& options, std::string& out,
              const Sink& sink, bool lines) {
  out.reserve(out.size() + (sink ? size_t{1} << 21 : (dwarf.info ? dwarf.info->size() * 24 : 0)) + 4096);
  JsonDumper dumper(module, dwarf, out, sink);
  if (lines) dumper.runAsLines(options);
  else dumper.run(options);
}

}  // namespace ptxdwarf::print
