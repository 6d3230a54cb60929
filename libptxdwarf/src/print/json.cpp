// The JSON dump: the content of the text dump (text.cpp) as one
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
#include "ptxdwarf/print/json.h"
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
      : m_(m), d_(d), out_(out), w_(out), sink_(sink), r_(m, d) {}

  // With a sink, hands it what has been rendered once it fills a chunk: the
  // JSON of a large file (hundreds of times the input when location lists are
  // shared) never sits whole in memory.
  void drain(bool always = false) {
    constexpr size_t kChunk = size_t{1} << 20;
    if (!sink_ || (out_.size() < kChunk && !always)) return;
    sink_(out_);
    out_.clear();
  }

  void hexBytes(std::string_view k, std::span<const uint8_t> bytes) {
    scratch_.clear();
    for (uint8_t b : bytes) appendHexDigits(scratch_, b, 2);
    w_.field(k, scratch_);
  }
  void relocKey(std::string_view k, const Relocation* r) {
    if (!r) return;
    scratch_.clear();
    appendReloc(scratch_, *r);
    w_.field(k, scratch_);
  }
  void named(std::string_view k, void (*spell)(std::string&, uint64_t), uint64_t v) {
    scratch_.clear();
    spell(scratch_, v);
    w_.field(k, scratch_);
  }

  // The operand values of `op` (signed ones as negative numbers), then its block.
  void operands(const read::Operation& op) {
    w_.key("operands");
    w_.arrayBegin();
    const dw::OpInfo* info = dw::opInfo(op.op);
    for (int s = 0; info && s < 2; ++s) {
      using K = dw::OperandKind;
      const K k = s == 0 ? info->a : info->b;
      if (k == K::none || k == K::unknown) break;
      if (k == K::s8 || k == K::s16 || k == K::s32 || k == K::s64 || k == K::sleb)
        w_.signedValue(static_cast<int64_t>(op.operands[s]));
      else
        w_.value(op.operands[s]);
    }
    w_.arrayEnd();
    if (info && !op.block.empty()) hexBytes("block", op.block);
  }

  void ops(std::span<const uint8_t> bytes, const SectionImage* section, uint64_t sectionOffset, uint8_t addressSize,
           bool withErrorKey) {
    auto e = read::decodeExpression(bytes, {addressSize, 4, section, sectionOffset});
    w_.key("expression");
    w_.arrayBegin();
    for (const read::Operation& op : e.ops) {
      w_.objectBegin();
      w_.field("offset", op.offset);
      w_.field("op", dw::opName(op.op));
      operands(op);
      if (op.op == dw::DW_OP_regx || op.op == dw::DW_OP_bregx) {
        if (auto reg = cuda::unpackRegister(op.operands[0])) w_.field("register", *reg);
      }
      relocKey("symbol", op.reloc);
      scratch_.clear();
      r_.operation(scratch_, op, addressSize);
      w_.field("text", scratch_);
      w_.objectEnd();
    }
    w_.arrayEnd();
    if (withErrorKey && !e.ok) w_.field("expression_error", e.error);
  }

  // "[a, b): expr" as the dump prints an entry: inside an attribute (`unit`
  // set, base address applied), or raw in .debug_loc ("(a, b): expr").
  void entryText(const LocEntryView& e, const SectionImage* s, uint8_t addressSize, const Unit* unit) {
    scratch2_.clear();
    if (unit) {
      scratch2_ += '[';
      r_.listAddress(scratch2_, *unit, e.begin, e.beginReloc);
      scratch2_ += ", ";
      r_.listAddress(scratch2_, *unit, e.end, e.endReloc);
      scratch2_ += ')';
    } else {
      scratch2_ += '(';
      r_.address(scratch2_, e.begin, e.beginReloc, addressSize);
      scratch2_ += ", ";
      r_.address(scratch2_, e.end, e.endReloc, addressSize);
      scratch2_ += ')';
    }
    scratch2_ += ": ";
    r_.expression(scratch2_, e.expr, s, e.exprOffset, addressSize);
    w_.field("text", scratch2_);
  }

  // The list at `offset`, which is left after its last complete entry;
  // whether the list ends before the section does.
  bool locEntries(const SectionImage* s, uint64_t& offset, uint8_t addressSize, const Unit* unit) {
    LocListReader list;
    bool complete = list.read(s, addressSize, offset);
    w_.key("entries");
    w_.arrayBegin();
    for (const LocEntryView e : list.entries()) {
      if (e.kind == LocEntryView::endOfList) break;
      w_.objectBegin();
      w_.field("offset", e.offset);
      w_.field("kind", e.kind == LocEntryView::range ? "range" : "base_address");
      w_.field("begin", e.begin);
      w_.field("end", e.end);
      relocKey("begin_symbol", e.beginReloc);
      relocKey("end_symbol", e.endReloc);
      if (e.kind == LocEntryView::range) {
        ops(e.expr, s, e.exprOffset, addressSize, true);
        entryText(e, s, addressSize, unit);
      }
      w_.objectEnd();
      drain();  // a list may hold tens of thousands of entries: megabytes of JSON
    }
    w_.arrayEnd();
    w_.key("complete");
    w_.boolean(complete);
    return complete;
  }

  // What the value's bytes hold: a string, the block's bytes, a number.
  void rawValue(const AttrValue& v) {
    if (v.isString()) {
      w_.field("value", v.string());
    } else if (v.isBlock()) {
      hexBytes("bytes", v.block());
    } else if (v.form == dw::DW_FORM_sdata) {
      w_.key("value");
      w_.signedValue(v.svalue());
    } else {
      w_.field("value", v.value);
    }
  }

  // The resolved file, CUDA address class or type name some attributes add.
  void resolvedName(const Unit& unit, const AttrValue& v) {
    if ((v.name == dw::DW_AT_decl_file || v.name == dw::DW_AT_call_file) && !v.reloc && !v.isBlock() &&
        !v.isString()) {
      scratch_.clear();
      if (r_.fileName(scratch_, unit, v.value)) w_.field("file", scratch_);
    } else if (v.name == dw::DW_AT_address_class && !v.reloc && v.isConstant()) {
      std::string_view cls = cuda::addressClassName(v.value);
      if (!cls.empty()) w_.field("address_class", cls);
    } else if (v.name == dw::DW_AT_type) {
      if (const Die* t = d_.referencedDie(v)) {
        scratch_.clear();
        r_.typeName(scratch_, t);
        w_.field("type_name", scratch_);
      }
    }
  }

  void attribute(const Die& die, const AttrValue& v) {
    const Unit& unit = d_.unitOf(die);
    w_.objectBegin();
    named("name", appendAttrName, v.name);
    named("form", appendFormName, v.form);
    w_.field("offset", v.offset);
    rawValue(v);
    relocKey("symbol", v.reloc);
    scratch_.clear();
    r_.attributeValue(scratch_, die, v, -1);
    w_.field("text", scratch_);
    resolvedName(unit, v);
    if (Renderer::isLocationList(v)) {
      w_.key("loclist");
      w_.objectBegin();
      std::optional<uint64_t> offset = r_.locOffset(v);
      w_.field("offset", offset);
      relocKey("symbol", v.reloc);
      if (offset) locEntries(d_.loc, *offset, unit.addressSize, &unit);
      w_.objectEnd();
    } else if (dw::holdsLocationExpression(v.name, v.form)) {
      ops(v.block(), d_.info, v.value, unit.addressSize, true);
    }
    w_.objectEnd();
  }

  // "offset", "code", "tag", "attributes" of a DIE (members of an open object).
  void dieFields(const Die& die) {
    w_.field("offset", die.offset);
    w_.field("code", d_.abbrevCode(die));
    named("tag", appendTagName, die.tag);
    w_.key("attributes");
    w_.arrayBegin();
    for (const AttrValue& v : d_.attributes(die)) attribute(die, v);
    w_.arrayEnd();
  }

  // A unit's header fields (members of an open object).
  void unitFields(const Unit& u) {
    w_.field("offset", u.offset);
    w_.field("length", u.length);
    w_.field("version", u.version);
    w_.field("abbr_offset", u.abbrevOffset);
    w_.field("addr_size", u.addressSize);
    w_.field("next_unit", u.offset + 4 + u.length);
  }

  // One JSON Lines document: {"kind":<kind>, ...}.
  void lineBegin(std::string_view kind) {
    w_.objectBegin();
    w_.field("kind", kind);
  }
  void lineEnd() {
    w_.objectEnd();
    out_ += '\n';
  }

  // json-lines: a line per unit, then a line per DIE with its unit, parent
  // and depth instead of nesting (NULL entries are not listed).
  void unitsAsLines() {
    for (const Unit& u : d_.units) {
      lineBegin("unit");
      unitFields(u);
      lineEnd();
      for (uint32_t i = u.firstDie; i < u.firstDie + u.dieCount; ++i) {
        const Die& die = d_.dies[i];
        if (die.isNull()) continue;
        drain();
        lineBegin("die");
        w_.field("unit", u.offset);
        const Die* parent = d_.parentOf(die);
        w_.field("parent", parent ? std::optional(parent->offset) : std::nullopt);
        w_.field("depth", die.depth);
        dieFields(die);
        lineEnd();
      }
    }
  }

  // A unit's DIEs as a tree: a DIE with children opens its "children" array,
  // closed when a DIE at or above its depth comes (the writer keeps the stack).
  void unitDies(const Unit& u) {
    w_.key("dies");
    w_.arrayBegin();
    uint32_t open = 0;  // DIEs whose "children" array is open
    for (uint32_t i = u.firstDie; i < u.firstDie + u.dieCount; ++i) {
      const Die& die = d_.dies[i];
      if (die.isNull()) continue;
      drain();
      for (; open > die.depth; --open) {
        w_.arrayEnd();
        w_.objectEnd();
      }
      w_.objectBegin();
      dieFields(die);
      if (die.hasChildren) {
        w_.key("children");
        w_.arrayBegin();
        ++open;
      } else {
        w_.objectEnd();
      }
    }
    for (; open > 0; --open) {
      w_.arrayEnd();
      w_.objectEnd();
    }
    w_.arrayEnd();
  }

  void units() {
    w_.key("units");
    w_.arrayBegin();
    for (const Unit& u : d_.units) {
      w_.objectBegin();
      unitFields(u);
      unitDies(u);
      w_.objectEnd();
    }
    w_.arrayEnd();
  }

  void abbrev() {
    w_.key("abbrev");
    w_.arrayBegin();
    for (const read::AbbrevTable* t : d_.tablesInOrder()) {
      w_.objectBegin();
      w_.field("offset", t->offset);
      w_.key("abbrevs");
      w_.arrayBegin();
      for (const read::Abbrev& a : t->abbrevs) {
        w_.objectBegin();
        w_.field("code", a.code);
        w_.field("offset", a.offset);
        named("tag", appendTagName, a.tag);
        w_.key("children");
        w_.boolean(a.hasChildren);
        w_.key("attributes");
        w_.arrayBegin();
        for (const read::AttrSpec& sp : t->specsOf(a)) {
          w_.objectBegin();
          named("name", appendAttrName, sp.name);
          named("form", appendFormName, sp.form);
          w_.objectEnd();
        }
        w_.arrayEnd();
        w_.objectEnd();
      }
      w_.arrayEnd();
      w_.objectEnd();
    }
    w_.arrayEnd();
  }

  void loc() {
    w_.key("loc");
    w_.arrayBegin();
    const SectionImage* s = d_.loc;
    if (s && !s->bytes.empty() && !d_.units.empty()) {
      uint8_t addressSize = d_.units[0].addressSize;
      uint64_t off = 0;
      while (off < s->bytes.size()) {
        w_.objectBegin();
        w_.field("offset", off);
        const bool complete = locEntries(s, off, addressSize, nullptr);  // read once, where a probe read it again
        w_.objectEnd();
        if (!complete) break;
      }
    }
    w_.arrayEnd();
  }

  // The header fields aranges and pubnames sets share.
  template <typename Set>
  void setHeader(const Set& set) {
    w_.field("offset", set.offset);
    w_.field("length", set.length);
    w_.field("version", set.version);
    w_.field("unit_offset", set.infoOffset);
    relocKey("unit_offset_symbol", set.infoReloc);
  }

  void aranges() {
    w_.key("aranges");
    w_.arrayBegin();
    for (const auto& set : d_.arangeSets) {
      w_.objectBegin();
      setHeader(set);
      w_.field("addr_size", set.addressSize);
      w_.field("seg_size", set.segmentSize);
      w_.key("ranges");
      w_.arrayBegin();
      for (const auto& r : set.ranges) {
        w_.objectBegin();
        w_.field("address", r.address);
        w_.field("length", r.length);
        relocKey("address_symbol", r.addressReloc);
        relocKey("length_symbol", r.lengthReloc);
        w_.objectEnd();
      }
      w_.arrayEnd();
      w_.objectEnd();
    }
    w_.arrayEnd();
  }

  void strs() {
    w_.key("str");
    w_.arrayBegin();
    if (const SectionImage* s = d_.str) {
      const auto& b = s->bytes;
      size_t off = 0;
      while (off < b.size()) {
        size_t end = off;
        while (end < b.size() && b[end]) ++end;
        if (end == b.size()) break;
        w_.objectBegin();
        w_.field("offset", off);
        w_.field("string", std::string_view(reinterpret_cast<const char*>(b.data() + off), end - off));
        w_.objectEnd();
        off = end + 1;
      }
    }
    w_.arrayEnd();
  }

  void pubnames() {
    w_.key("pubnames");
    w_.arrayBegin();
    for (const auto& set : d_.pubnameSets) {
      w_.objectBegin();
      setHeader(set);
      w_.field("unit_size", set.infoLength);
      w_.key("entries");
      w_.arrayBegin();
      for (const auto& e : set.entries) {
        w_.objectBegin();
        w_.field("offset", e.dieOffset);
        w_.field("name", e.name);
        w_.objectEnd();
      }
      w_.arrayEnd();
      w_.objectEnd();
    }
    w_.arrayEnd();
  }

  // The .file/.loc line table (line.cpp), streamed row by row.
  void line() {
    lineTableJson(m_, w_, [this] { drain(); });
  }

  void run(const DumpOptions& o) {
    w_.objectBegin();
    w_.field("file", m_.filename);
    if (o.abbrev) abbrev();
    if (o.info) units();
    if (o.loc) loc();
    if (o.aranges) aranges();
    if (o.line) line();
    if (o.str) strs();
    if (o.pubnames) pubnames();
    w_.objectEnd();
    out_ += '\n';
    drain(true);
  }

  // json-lines: {"kind":"file","file":...}, then each selected section as
  // one line {"kind":"abbrev","abbrev":[...]} (these nest a few levels at
  // most), except .debug_info: a line per unit and per DIE (unitsAsLines).
  void runAsLines(const DumpOptions& o) {
    lineBegin("file");
    w_.field("file", m_.filename);
    lineEnd();
    auto section = [&](std::string_view kind, void (JsonDumper::*render)()) {
      lineBegin(kind);
      (this->*render)();  // the member named `kind`
      lineEnd();
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
  JsonWriter w_;
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
