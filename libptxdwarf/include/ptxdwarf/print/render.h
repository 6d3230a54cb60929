// The one renderer of DWARF values: attribute values, location expressions,
// location lists and type names, spelled as llvm-dwarfdump spells them. The
// text dump, the JSON "text" fields, the diff and the writer's verbose comments
// all spell values through it, so they agree to the byte.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ptxdwarf/format.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/read/expression.h"
#include "ptxdwarf/section.h"
#include "ptxdwarf/view/attributes.h"

namespace ptxdwarf::print {

// `sym`, `sym+8`, `sym-4`, `A-B`, `A-B+8`: Relocation::expression() without a temporary.
void appendReloc(std::string& out, const Relocation& r);
// A relocation's addend after its symbols: `+8`, `-4`, nothing for 0.
void appendAddend(std::string& out, int64_t addend);

// ---- .debug_loc entries, read straight from the section image ----

using LocEntryView = read::LocEntry;

// One list at a time, as the library's reader reads it (read::readLocList),
// its entries decoded as they are iterated from the 8-byte references the
// reader keeps. nvcc -G gives a variable live across a long kernel one list
// of tens of thousands of entries: held as LocEntry values (72 bytes each,
// in a vector grown by doubling) the one list of a 20 MB single-kernel
// file took 12 MB of a dump's 36.
class LocListReader {
 public:
  LocListReader() = default;
  LocListReader(const LocListReader&) = delete;  // the entries refer to this reader's references
  LocListReader& operator=(const LocListReader&) = delete;

  // Reads the list at `offset`; false when the section ends inside it.
  // `offset` is left after the last complete entry read. The entries of the
  // list read before are gone.
  bool read(const SectionImage* loc, uint8_t addressSize, uint64_t& offset);
  const read::LocEntries& entries() const { return list_.entries; }

 private:
  std::vector<read::LocEntryRef> refs_;  // the list's, reused for the next
  read::LocList list_;
};

// ---- the renderer ----

class Renderer {
 public:
  // Spells a symbolic operand (a relocated value: `sym`, `sym+8`, `A-B`).
  using SymbolSpeller = std::function<void(std::string& out, const Relocation& r)>;

  // `betweenEntries`, when set, is called after each entry of a location
  // list rendered into the output: where a dump writing to a stream may
  // write out what it holds (one attribute can name a list of tens of
  // thousands of entries, megabytes of text).
  Renderer(const ptx::Module& module, const read::Dwarf& dwarf,
           std::function<void()> betweenEntries = {})
      : module_(module), dwarf_(dwarf), betweenEntries_(std::move(betweenEntries)) {}

  // The symbols of expressions and of plain values spelled by `symbols`
  // instead of as written: the diff spells them by what they stand for (a
  // code label by its source place), so that renamed labels compare equal.
  void spellSymbolsWith(SymbolSpeller symbols) { symbols_ = std::move(symbols); }

  // What llvm-dwarfdump prints between "DW_AT_x\t(" and ")" (with our
  // extensions). `listIndent` is the indentation of location-list entry lines;
  // a negative value puts each entry on a new line without indentation.
  void attributeValue(std::string& out, const read::Die& die,
                      const read::AttrValue& v, int listIndent) const;

  // A location expression: "DW_OP_regx %r1, DW_OP_piece 0x4".
  void expression(std::string& out, std::span<const uint8_t> bytes, const SectionImage* section,
                  uint64_t sectionOffset, uint8_t addressSize) const;
  // One decoded operation (no separators); `bytes` are the whole expression's bytes.
  void operation(std::string& out, const read::Operation& op, uint8_t addressSize) const;
  // A location expression as the verbose PTX writer's comments spell it: the
  // operands as encoded, one space between operations, only DW_OP_regx's
  // register named ("DW_OP_bregx 0x255350 0 DW_OP_consts 3"), "<undecodable>"
  // where decoding stops; nothing for no bytes. An address size of 0 reads as 8.
  static void encodedExpression(std::string& out, std::span<const uint8_t> bytes, const SectionImage* section,
                                uint64_t sectionOffset, uint8_t addressSize);

  // ---- the plain spelling, for comparing two files' values ----
  // llvm-dwarfdump's without its form-specific layout: constants in decimal,
  // named constants by name, an address class as `ADDR_local_space (6)`,
  // decl_file as the resolved path, strings quoted, flags as true/false,
  // expressions decoded, a location list by its entries as written
  // ("[begin, end): expr; base X", no base applied), a reference as its
  // symbol or raw offset; every symbol through the symbol speller.
  void plainValue(std::string& out, const read::Die& die, const read::AttrValue& v) const;
  // One .debug_aranges range: `[begin, end)`, `[f_begin, f_end)` for a length `f_end-f_begin`.
  void plainRange(std::string& out, const read::ArangeSet& set, const read::Range& r) const;

  // The whole location list body of an attribute: "<offset>: \n<indent>[a, b): expr..."
  void locationList(std::string& out, const read::Unit& unit, const read::AttrValue& v,
                    int listIndent) const;
  // One range bound of a list entry as printed inside an attribute (base applied).
  void listAddress(std::string& out, const read::Unit& unit, uint64_t value,
                   const Relocation* reloc) const;
  // An address-sized operand: the symbol (through the symbol speller), else "0x%016x".
  void address(std::string& out, uint64_t value, const Relocation* reloc, uint8_t addressSize) const;

  // llvm-dwarfdump's qualified type name of `die` ("const char *", "int[32]").
  void typeName(std::string& out, const read::Die* die) const;
  // The resolved path of file `index` for the unit (decl_file/call_file), or false.
  bool fileName(std::string& out, const read::Unit& unit, uint64_t index) const;

  // The .debug_loc offset a location attribute names (relocation resolved), or none.
  std::optional<uint64_t> locOffset(const read::AttrValue& v) const;
  // Does llvm-dwarfdump print this attribute as a location list? (As an
  // expression: dw::holdsLocationExpression.)
  static bool isLocationList(const read::AttrValue& v);

 private:
  void symbol(std::string& out, const Relocation& r) const;
  void plainLocationList(std::string& out, const read::Unit& unit, const read::AttrValue& v) const;
  void plainConstant(std::string& out, const read::Unit& unit, const read::AttrValue& v) const;

  const ptx::Module& module_;
  const read::Dwarf& dwarf_;
  std::function<void()> betweenEntries_;
  SymbolSpeller symbols_;  // none: as written
  // Made at the first type name (a dump names a type at every DW_AT_type):
  // the names' template parameters are found without walking subtrees.
  mutable std::shared_ptr<const view::SubtreeEnds> ends_;
};

// Tag/attribute/form names with llvm-dwarfdump 14's spelling of unknown values.
void appendTagName(std::string& out, uint64_t tag);
void appendAttrName(std::string& out, uint64_t attr);
void appendFormName(std::string& out, uint64_t form);

}  // namespace ptxdwarf::print
