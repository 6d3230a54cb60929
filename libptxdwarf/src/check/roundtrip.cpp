// Rule round-trip: decoding the debug sections and encoding them again in
// preserve mode gives back every byte and relocation. It checks the decoder
// and the writer against each other on this file, so it reaches into write/
// (write/reencode.h): the one arrow from check/ to write/.
#include <map>
#include <optional>
#include <span>
#include <string_view>

#include "checker.h"
#include "../work.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/write/reencode.h"

namespace ptxdwarf::check {

void Checker::roundTrip() {
  // One section at a time, so only one re-encoded image is alive at once.
  Diagnostics encodeDiags;
  std::optional<write::ImageDifference> diff;
  // The last decoded section of each name, as compareImages() picks (a map:
  // a scan per section is quadratic in a file of many sections).
  std::map<std::string_view, const SectionImage*, work::CountingLess<work::sectionLookup>> lastOfName;
  for (const SectionImage& in : dwarf_.sections) lastOfName[in.name] = &in;
  for (const SectionImage& s : module_.sections) {  // the debug sections, compared where they are
    if (!s.name.starts_with(".debug")) continue;
    auto found = lastOfName.find(s.name);
    const SectionImage* decoded = found == lastOfName.end() ? nullptr : found->second;
    if (!decoded) {
      diff = write::ImageDifference{s.name, 0, "section missing after re-encoding"};
      break;
    }
    if (decoded == &s) {  // the section the model was decoded from: compared as it is re-encoded
      if ((diff = write::preserveDifference(dwarf_, s, encodeDiags))) break;
      continue;
    }
    SectionImage again = write::encodePreserve(dwarf_, *decoded, encodeDiags);
    if ((diff = write::compareImages(std::span(&s, 1), std::span(&again, 1)))) break;
  }
  if (!diff) return;
  const SectionImage* sec = module_.section(diff->section);
  error(sec, diff->offset, "round-trip",
        "decode and re-encode differ at " + diff->section + "+" + hex(diff->offset, 8) + ": " + diff->message);
}

}  // namespace ptxdwarf::check
