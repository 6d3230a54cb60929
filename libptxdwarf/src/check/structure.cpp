// Rules about the shape of the DWARF: the decoder's findings (unit headers,
// abbreviations, bounds), unit address sizes against the PTX, and the forms a
// unit's version has and ptxas reads.
#include <array>
#include <span>

#include "checker.h"
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/leb128.h"

namespace ptxdwarf::check {

using namespace dw;

namespace {

bool isVersion4Form(uint16_t form) {
  return form == DW_FORM_sec_offset || form == DW_FORM_exprloc || form == DW_FORM_flag_present ||
         form == DW_FORM_ref_sig8;
}

// Offset of the form of an abbreviation's spec `index` in .debug_abbrev
// (the abbreviation's own offset when the bytes do not decode).
uint64_t formOffset(const read::Dwarf& dwarf, const read::Abbrev& a, size_t index) {
  ByteReader r(dwarf.abbrev->bytes, a.offset);
  r.uleb();  // code
  r.uleb();  // tag
  r.u8();    // children
  for (size_t k = 0; k < index; ++k) {
    r.uleb();
    r.uleb();
  }
  r.uleb();  // the attribute name; the form follows
  return r.ok() ? r.offset() : a.offset;
}

}  // namespace

// What read::decode found while decoding: its rules are check's rules.
void Checker::decoderFindings() {
  for (const Diagnostic& diag : dwarf_.diagnostics.items) out_.items.push_back(diag);
}

void Checker::unitHeaders() {
  for (const read::Unit& u : dwarf_.units) {
    if (module_.addressSize && u.addressSize != module_.addressSize / 8 && (u.addressSize == 4 || u.addressSize == 8))
      error(dwarf_.info, u.offset + 10, "unit-address-size",
            "unit address size " + std::to_string(u.addressSize) + " does not match .address_size " +
                std::to_string(module_.addressSize));
    const read::AbbrevTable* t = dwarf_.tableOf(u);
    if (!t || u.version >= 4) continue;
    for (const read::Abbrev& a : t->abbrevs)
      for (const read::AttrSpec& s : t->specsOf(a))
        if (isVersion4Form(s.form))
          error(dwarf_.abbrev, a.offset, "form-version",
                std::string(formName(s.form)) + " (of " + std::string(attributeName(s.name)) +
                    ") is a DWARF 4 form, used by a DWARF " + std::to_string(u.version) + " unit at " + hex(u.offset, 8));
  }
}

// Each abbreviation's form that ptxas cannot read, once per abbreviation,
// form and DWARF version, at the form's byte in .debug_abbrev. A form its
// unit's version does not have is form-version's report, not repeated here.
void Checker::ptxasForms() {
  // The DWARF versions (2, 3, 4) of the units using each table: each table is
  // visited once per version, however many units share it.
  std::vector<uint8_t> versions(dwarf_.abbrevTables.size(), 0);
  std::vector<std::array<uint64_t, 5>> firstUnit(dwarf_.abbrevTables.size());  // by version
  for (const read::Unit& u : dwarf_.units) {
    if (u.abbrevTable == read::kNone || u.version < 2 || u.version > 4) continue;
    if (!(versions[u.abbrevTable] & (1u << u.version))) firstUnit[u.abbrevTable][u.version] = u.offset;
    versions[u.abbrevTable] |= static_cast<uint8_t>(1u << u.version);
  }
  for (size_t t = 0; t < dwarf_.abbrevTables.size(); ++t) {
    for (uint16_t version = 2; version <= 4; ++version) {
      if (!(versions[t] & (1u << version))) continue;
      const read::AbbrevTable& table = dwarf_.abbrevTables[t];
      for (const read::Abbrev& a : table.abbrevs) {
        std::span<const read::AttrSpec> specs = table.specsOf(a);
        for (size_t i = 0; i < specs.size(); ++i) {
          std::string_view problem = cuda::ptxasFormProblem(specs[i].form, version);
          if (problem.empty() || (version < 4 && isVersion4Form(specs[i].form))) continue;
          error(dwarf_.abbrev, formOffset(dwarf_, a, i), "ptxas-form",
                std::string(formName(specs[i].form)) + " (of " + std::string(attributeName(specs[i].name)) +
                    ") in a DWARF " + std::to_string(version) + " unit at " + hex(firstUnit[t][version], 8) + ": " +
                    std::string(problem));
        }
      }
    }
  }
}

}  // namespace ptxdwarf::check
