// Oracles for `ptxdump verify`: our decoder, LLVM's DebugInfo/DWARF and libdwarf
// each describe the same section images in one neutral shape, and compareViews
// lists where two descriptions differ.
//
// This header includes neither LLVM nor libdwarf (their DW_* names clash with
// each other and with ptxdwarf/dwarf.h); each oracle lives in its own .cpp.
//
// Symbolic operands. A SectionImage keeps `.b64 $L__tmp3`, `.b32 .debug_loc+138`
// as relocations over zero bytes. Read raw, those zeros mean something else to
// any DWARF consumer: a .debug_loc entry `.b64 $L__tmp1, .b64 $L__tmp3` is
// (0,0), the end of the list; every unit's abbreviation offset and every
// location-list reference would read as 0. So, like the linker that makes the
// cubin, `Linker` patches every relocation into the bytes before an oracle sees
// them, and ourView reports our decoder's values through the same Linker:
//  - a `.debug_*` section symbol is that section's offset (addend only), as in a
//    cubin, where each debug section starts at 0;
//  - `A-B` with both labels in one section is the value ptxas computes;
//  - any other symbol (code label, function, variable) gets a synthetic address:
//    its PTX line number * 256 (so code order is kept and ranges are well formed),
//    plus the addend; an undefined symbol is 0 plus the addend; an `A-B` of such
//    symbols is the difference of the synthetic addresses.
// Values are truncated to the operand's width, in both views alike.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ptxdwarf/section.h"

namespace ptxdwarf {
namespace ptx {
struct Module;
}
namespace read {
class Dwarf;
}
}  // namespace ptxdwarf

namespace ptxdump {

// How an attribute value is compared; decided by the form alone (kindOfForm) so
// every view classifies alike.
enum class AttrKind : uint8_t {
  constant,   // data1/2/4/8, udata, sdata (two's complement in u64), sec_offset
  flag,       // flag, flag_present (u64: the byte, 1 for flag_present)
  address,    // addr (u64)
  reference,  // ref1/2/4/8/udata/ref_addr (u64: absolute .debug_info offset)
  string,     // string, strp (text)
  block,      // block1/2/4/block, exprloc (bytes)
  other,      // anything else: form only
};
AttrKind kindOfForm(uint16_t form);
std::string_view attrKindName(AttrKind k);

struct OracleAttr {
  uint16_t name = 0;
  uint16_t form = 0;
  AttrKind kind = AttrKind::other;
  uint64_t u64 = 0;
  std::string string;
  std::vector<uint8_t> bytes;
  bool valueKnown = true;  // false when the oracle could not produce a value (see OracleView::messages)
};

struct OracleDie {
  uint64_t offset = 0;
  uint16_t tag = 0;  // 0 for a NULL entry
  uint32_t depth = 0;
  std::vector<OracleAttr> attrs;
};

struct OracleUnit {
  uint64_t offset = 0;
  uint64_t length = 0;
  uint16_t version = 0;
  uint64_t abbrevOffset = 0;
  uint8_t addressSize = 0;
};

inline constexpr uint64_t kUnknownOffset = UINT64_MAX;

struct OracleLocEntry {
  enum Kind : uint8_t { range, baseAddress, endOfList };
  Kind kind = range;
  uint64_t offset = 0;  // of the entry in .debug_loc; kUnknownOffset when the oracle cannot tell
  uint64_t begin = 0, end = 0;
  std::vector<uint8_t> expr;
};

struct OracleLocList {
  uint64_t offset = 0;
  std::vector<OracleLocEntry> entries;
};

struct OracleNameSet {
  uint64_t length = 0;
  uint16_t version = 0;
  uint64_t infoOffset = 0;
  uint64_t infoLength = 0;
  uint64_t names = 0;  // entries in the set
};

struct OraclePubname {
  uint64_t dieOffset = 0;  // absolute .debug_info offset (set's unit offset + entry's)
  std::string name;
};

struct OracleArangeSet {
  uint64_t length = 0;
  uint16_t version = 0;
  uint64_t infoOffset = 0;
  uint8_t addressSize = 0;
  uint8_t segmentSize = 0;
};

struct OracleRange {
  uint64_t infoOffset = 0;  // of the unit the set names
  uint64_t address = 0;
  uint64_t length = 0;
};

struct OracleView {
  std::string oracle;  // "ours", "llvm", "libdwarf"
  // What this oracle can show; comparisons skip what either side lacks.
  bool hasNullEntries = false;  // NULL entries listed among the DIEs
  bool hasLocEnd = false;       // end-of-list entries listed
  bool hasLocExprBytes = false; // expression bytes of loclist entries
  bool hasNameSetHeaders = false;
  bool hasEmptyNameSets = false;  // pubnames sets with no names listed (libdwarf sees a set through its names)
  bool hasArangeSetHeaders = false;

  std::vector<OracleUnit> units;
  std::vector<OracleDie> dies;       // in section order
  std::vector<OracleLocList> loclists;  // sorted by offset
  std::vector<OracleNameSet> nameSets;
  std::vector<OraclePubname> pubnames;  // every set's entries, in order
  std::vector<OracleArangeSet> arangeSets;
  std::vector<OracleRange> ranges;      // every set's ranges, in order, without terminators
  // Errors and warnings the oracle reported while reading (each a disagreement),
  // and, for LLVM, what its verifier found.
  std::vector<std::string> messages;
  // Said in the output but not a disagreement (what was filtered and why).
  std::vector<std::string> notes;
  // Ours only: facts about the input that our own check reports and an
  // oracle's verifier may report too, each as the start of that report
  // ("verifier: error: DIEs have overlapping address ranges: [0x0000a1f0: ").
  // A report that starts so is the same finding, not a disagreement.
  std::vector<std::string> sharedFindings;
  // Bits of a pubnames set's length the oracle gives back: libdwarf 20210528
  // keeps it in an unsigned char (Dwarf_Global_Context_s::pu_length), so
  // dwarf_get_globals_header() returns only its low 8 bits.
  unsigned nameSetLengthBits = 64;

  size_t attributeCount() const;
};

// Patches relocations into section bytes, as described at the top of this file.
class Linker {
 public:
  // `module` supplies the PTX lines that place code labels, functions and
  // variables; without it every such symbol is undefined (0 + addend).
  Linker(std::span<const ptxdwarf::SectionImage> sections, const ptxdwarf::ptx::Module* module);
  // The value the operand of `r` gets, truncated to r.size bytes.
  uint64_t value(const ptxdwarf::Relocation& r) const;
  // `length` bytes of `image` from `offset` with the relocations inside applied.
  std::vector<uint8_t> bytes(const ptxdwarf::SectionImage& image, uint64_t offset, uint64_t length) const;
  // Every debug section with its relocations applied (and none left), plus, when
  // the input has none, a stand-in for the .debug_line ptxas generates from the
  // `.file`/`.loc` directives: one DWARF 2 line table with the module's `.file`
  // table and no rows, at offset 0 where `.b32 .debug_line` points.
  std::vector<ptxdwarf::SectionImage> link() const;
  bool addedDebugLine() const;

 private:
  std::span<const ptxdwarf::SectionImage> sections_;
  const ptxdwarf::ptx::Module* module_ = nullptr;
  std::unordered_map<std::string, uint64_t> addresses_;
  uint64_t symbolValue(std::string_view name) const;
};

// The .debug_line Linker::link adds: a DWARF 2 line table header with no
// include directories, `files` as file 1, 2, ... (directory 0, no time, no size)
// and no line program.
std::vector<uint8_t> minimalDebugLine(const std::vector<std::string>& files);

// Our decoder's view of `dwarf` (values of symbolic operands through `linker`).
// NULL entries after the unit DIE's children (padding) are not listed: LLVM stops
// reading a unit where the unit DIE's children end.
OracleView ourView(const ptxdwarf::read::Dwarf& dwarf, const Linker& linker);

// LLVM's DebugInfo/DWARF (14 to 22) over linked images (no ELF file), plus its verifier.
// nullopt with `error` set when ptxdump-verify was built without LLVM.
std::optional<OracleView> llvmView(std::span<const ptxdwarf::SectionImage> linked, std::string* error);
// libdwarf over linked images through its object access interface.
std::optional<OracleView> libdwarfView(std::span<const ptxdwarf::SectionImage> linked, std::string* error);
bool haveLlvmOracle();
bool haveLibdwarfOracle();

struct Comparison {
  // Every difference between the two views, one line each:
  //   `.debug_info+0x45: DW_AT_name: ours "x", llvm "y"`
  // (without the `file: verify[llvm]: ` prefix, which runVerify adds), then one
  // line per message of `theirs`.
  std::vector<std::string> disagreements;
  // What one of the views cannot express and so was not compared, where the
  // input has any of it: `3 NULL entries (libdwarf lists none)`.
  std::vector<std::string> notCompared;
};
Comparison compare(const OracleView& ours, const OracleView& theirs, std::string_view oracleName);
// compare(...).disagreements.
std::vector<std::string> compareViews(const OracleView& ours, const OracleView& theirs, std::string_view oracleName);

}  // namespace ptxdump
