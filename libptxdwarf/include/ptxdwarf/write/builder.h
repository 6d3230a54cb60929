// Semantic helpers over write::Unit for what PTX producers emit. Each helper
// adds one DIE with its attributes in the order the Chapter 6 example (and
// nvcc) writes them; anything else goes through Unit::set, the escape hatch.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ptxdwarf/write/unit.h"

namespace ptxdwarf::write {

struct CompileUnitDesc {
  std::string producer{};
  uint16_t language = 0x0004;  // DW_LANG_C_plus_plus
  std::string name{};
  std::optional<SymbolRef> lowPc = SymbolRef{};  // the example writes `.b64 0`
  bool stmtList = true;                           // DW_AT_stmt_list -> .debug_line (ptxas makes it)
  std::string compDir{};
};

struct SubprogramDesc {
  std::string name{};
  std::string linkageName{};  // the PTX function name; cuda-gdb finds registers through it
  unsigned declFile = 0;    // 0: no decl_file/decl_line
  unsigned declLine = 0;
  DieId type = kNoDie;      // return type; none for void
  bool external = true;
  std::optional<SymbolRef> lowPc{}, highPc{};  // PTX labels around the body
  bool frameBaseCfa = true;                // DW_AT_frame_base DW_OP_call_frame_cfa
  bool linkageNameFirst = true;            // the example puts DW_AT_MIPS_linkage_name first
  uint16_t linkageAttribute = 0x2007;      // DW_AT_MIPS_linkage_name (nvcc); 0x6e for DW_AT_linkage_name
};

struct VariableDesc {
  std::string name{};
  unsigned declFile = 0;
  unsigned declLine = 0;
  DieId type = kNoDie;
  Location location{};  // none: no DW_AT_location / class
  bool external = false;
  std::string linkageName{};
};

// A variable living in a PTX register, by its name ("%r5"): see
// Builder::registerVariable.
struct RegisterVariableDesc {
  std::string_view reg{};  // the register; also the variable's DW_AT_name
  unsigned declFile = 0;   // 0: no decl_file/decl_line
  unsigned declLine = 0;
  DieId type = kNoDie;
};

// The registers of a `.reg .T %stem<count>` declaration, %stem0 ..
// %stem<count-1>: see Builder::registerVariables.
struct RegisterRangeDesc {
  std::string_view stem{};  // "%r"
  uint32_t count = 0;
  unsigned declFile = 0;  // 0: no decl_file/decl_line
  unsigned declLine = 0;
  DieId type = kNoDie;
};

struct MemberDesc {
  std::string name{};
  DieId type = kNoDie;
  uint64_t offset = 0;  // byte offset in the aggregate
  unsigned declFile = 0, declLine = 0;
  std::optional<uint64_t> byteSize{}, bitSize{}, bitOffset{};  // bit fields (DWARF 2 style)
};

class Builder {
 public:
  explicit Builder(UnitOptions options = {}) : unit_(0x11, options) {}

  Unit& unit() { return unit_; }
  const Unit& unit() const { return unit_; }
  DieId root() const { return unit_.root(); }

  DieId compileUnit(const CompileUnitDesc& d);
  DieId subprogram(const SubprogramDesc& d, DieId parent = 0);
  DieId formalParameter(DieId subprogram, const VariableDesc& d);
  DieId variable(DieId scope, const VariableDesc& d);
  // The DIE variable() writes for a Location::reg location (name, decl file
  // and line, type, DW_OP_regx <packed name>, ADDR_reg_space), built without
  // a Location or an owned name: for a producer that describes every register
  // (annotate writes one per declared register, hundreds of thousands in a
  // large module). Throws BuildError for a name cuda-gdb cannot read
  // (registerProblem says why).
  DieId registerVariable(DieId scope, const RegisterVariableDesc& d);
  // registerVariable() for each register of a range, the shape and forms
  // chosen once: what a `%r<N>` declaration takes. The DIEs are one register
  // run (Unit::addRegisterRun): the first register's bytes and the count,
  // the others made as they are encoded. Throws BuildError when the last
  // name would not fit cuda-gdb's 8 bytes (give the count of those that do).
  void registerVariables(DieId scope, const RegisterRangeDesc& d);
  DieId lexicalBlock(DieId scope, SymbolRef begin, SymbolRef end);
  DieId inlinedSubroutine(DieId scope, DieId origin, SymbolRef begin, SymbolRef end, unsigned callFile,
                          unsigned callLine);

  DieId baseType(std::string_view name, uint8_t encoding, uint64_t byteSize, DieId parent = 0);
  DieId unspecifiedType(std::string_view name, DieId parent = 0);
  // Pointers carry the class of the space they point into (generic by default).
  DieId pointerType(DieId pointee, uint8_t addressClass = cuda::ADDR_generic_space, DieId parent = 0);
  DieId referenceType(DieId pointee, DieId parent = 0);
  DieId constType(DieId type, DieId parent = 0);
  DieId volatileType(DieId type, DieId parent = 0);
  DieId typedefType(std::string_view name, DieId type, DieId parent = 0);
  // tag: DW_TAG_structure_type, DW_TAG_class_type or DW_TAG_union_type.
  DieId aggregate(uint16_t tag, std::string_view name, uint64_t byteSize, DieId parent = 0);
  DieId member(DieId aggregate, const MemberDesc& d);
  DieId arrayType(DieId element, DieId parent = 0);
  // A dimension of `count` elements, indexed by `indexType` (none to omit).
  DieId subrange(DieId array, uint64_t count, DieId indexType = kNoDie);
  DieId enumeration(std::string_view name, uint64_t byteSize, DieId parent = 0);
  DieId enumerator(DieId enumeration, std::string_view name, int64_t value);
  DieId subroutineType(DieId returnType, const std::vector<DieId>& parameters, DieId parent = 0);

 private:
  void setLocation(DieId die, const Location& location);
  DieId variableLike(DieId scope, uint16_t tag, const VariableDesc& d);
  // What every register variable of one declaration shares: its shape, and
  // the bytes between its name and its location (decl file and line, type).
  struct RegisterLayout {
    uint32_t shape = 0;
    uint8_t common[24] = {};  // decl file and line (8 bytes each at most), type (4)
    size_t commonSize = 0;
  };
  RegisterLayout registerLayout(unsigned declFile, unsigned declLine, DieId type);
  uint32_t registerShape(uint16_t fileForm, uint16_t lineForm, bool typed);
  Unit unit_;
  std::vector<std::pair<uint32_t, uint32_t>> registerShapes_;  // (forms key, Unit shape)
};

}  // namespace ptxdwarf::write
