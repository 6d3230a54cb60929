// What differs between the LLVM versions the LLVM oracle builds against (14 to
// 22), kept here so that oracle_llvm.cpp reads the same on every one of them.
//
//  - Optional values: LLVM 14 and 15 return llvm::Optional from DWARFFormValue's
//    getAs* calls, 16 and later std::optional (llvm::Optional is gone in 17).
//    oracle_llvm.cpp names neither: it keeps each result in `auto` and uses only
//    what both have (test as bool, dereference with *).
//  - References: DWARFFormValue::getAsReference (14-18) gave the absolute
//    .debug_info offset; 19 split it into getAsRelativeReference (unit-relative
//    forms, now without the unit's offset) and getAsDebugInfoReference
//    (DW_FORM_ref_addr). getAsReferenceUVal, the operand as written, is the same
//    from 14 to 22, and the rule that makes an offset of it is DWARF's own, so
//    referenceOffset applies that rule on every version alike.
#pragma once

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/DebugInfo/DWARF/DWARFFormValue.h>

#include <cstdint>
#include <optional>

#if LLVM_VERSION_MAJOR < 14
#error "the LLVM oracle needs LLVM 14 or newer"
#endif

namespace ptxdump::llvmcompat {

// The .debug_info offset a reference attribute names: the operand plus the
// offset of the unit holding it for the unit-relative forms (ref1/2/4/8/udata),
// the operand itself for DW_FORM_ref_addr. Not a DIE lookup: a reference into
// the middle of a DIE keeps the offset it names. nullopt for other forms.
inline std::optional<uint64_t> referenceOffset(const llvm::DWARFFormValue& value, uint64_t unitOffset) {
  auto operand = value.getAsReferenceUVal();
  if (!operand) return std::nullopt;
  switch (value.getForm()) {
    case llvm::dwarf::DW_FORM_ref1:
    case llvm::dwarf::DW_FORM_ref2:
    case llvm::dwarf::DW_FORM_ref4:
    case llvm::dwarf::DW_FORM_ref8:
    case llvm::dwarf::DW_FORM_ref_udata:
      return unitOffset + *operand;
    case llvm::dwarf::DW_FORM_ref_addr:
      return *operand;
    default:
      return std::nullopt;
  }
}

}  // namespace ptxdump::llvmcompat
