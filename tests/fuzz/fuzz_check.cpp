// PTX text -> read -> decode -> every check rule with the round trip; kept
// apart from fuzz_ptx_reader so each gets its own corpus and coverage.
#include <cstdlib>

#include "properties.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ptxdwarf::ptx::ReadResult r = ptxdwarf::ptx::read(text, "fuzz.ptx");
  if (!r.ok()) return 0;
  ptxdwarf::read::Dwarf dwarf = ptxdwarf::read::decode(r.module.sections);
  ptxdwarf::check::run(r.module, dwarf);
  ptxdwarf::Diagnostics diags;
  ptxdwarf::write::encodeCanonical(dwarf, diags);
  return 0;
}
