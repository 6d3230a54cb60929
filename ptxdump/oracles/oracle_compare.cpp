// compareViews: where two oracles' descriptions of the same sections differ.
// Also the stand-ins for oracles this ptxdump-verify was built without.
#include <algorithm>
#include <cstdio>
#include <map>

#include "oracle.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"

namespace ptxdump {

using namespace ptxdwarf;

#ifndef PTXDWARF_HAVE_LLVM
bool haveLlvmOracle() { return false; }
std::optional<OracleView> llvmView(std::span<const SectionImage>, std::string* error) {
  if (error) *error = "ptxdump-verify was built without LLVM DebugInfo";
  return std::nullopt;
}
#endif
#ifndef PTXDWARF_HAVE_LIBDWARF
bool haveLibdwarfOracle() { return false; }
std::optional<OracleView> libdwarfView(std::span<const SectionImage>, std::string* error) {
  if (error) *error = "ptxdump-verify was built without libdwarf";
  return std::nullopt;
}
#endif

namespace {

std::string at(std::string_view section, uint64_t offset) { return std::string(section) + "+" + hex(offset); }

template <class F>
std::string named(F nameOf, uint64_t v, const char* unknownPrefix) {
  std::string_view n = nameOf(v);
  if (!n.empty()) return std::string(n);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%llx", unknownPrefix, static_cast<unsigned long long>(v));
  return buf;
}
std::string tagText(uint16_t t) { return t == 0 ? "NULL" : named(dw::tagName, t, "DW_TAG_unknown_"); }
std::string attrText(uint16_t a) { return named(dw::attributeName, a, "DW_AT_unknown_"); }
std::string formText(uint16_t f) { return named(dw::formName, f, "DW_FORM_unknown_"); }

std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string bytesText(const std::vector<uint8_t>& b) {
  std::string out = "<";
  for (size_t i = 0; i < b.size(); ++i) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%s%02x", i ? " " : "", b[i]);
    out += buf;
  }
  return out + ">";
}

std::string valueText(const OracleAttr& a) {
  if (!a.valueKnown) return "(no value)";
  switch (a.kind) {
    case AttrKind::string: return quoted(a.string);
    case AttrKind::block: return bytesText(a.bytes);
    case AttrKind::other: return "(not compared)";
    default: return hex(a.u64);
  }
}

bool sameValue(const OracleAttr& a, const OracleAttr& b) {
  if (a.valueKnown != b.valueKnown) return false;
  if (!a.valueKnown) return true;
  switch (a.kind) {
    case AttrKind::string:
      // strp offsets too, where both oracles report one (libdwarf does not).
      return a.string == b.string && (a.form != dw::DW_FORM_strp || a.u64 == UINT64_MAX || b.u64 == UINT64_MAX ||
                                      a.u64 == b.u64);
    case AttrKind::block: return a.bytes == b.bytes;
    case AttrKind::other: return true;
    default: return a.u64 == b.u64;
  }
}

class Comparer {
 public:
  Comparer(const OracleView& ours, const OracleView& theirs, std::string_view name)
      : ours_(ours), theirs_(theirs), name_(name) {}

  Comparison run() {
    units();
    dies();
    loclists();
    pubnames();
    aranges();
    for (const std::string& m : theirs_.messages) {
      bool shared = std::any_of(ours_.sharedFindings.begin(), ours_.sharedFindings.end(),
                                [&](const std::string& f) { return m.starts_with(f); });
      if (!shared) out_.push_back(name_ + " reports: " + m);
    }
    return {std::move(out_), std::move(notCompared_)};
  }

 private:
  const OracleView& ours_;
  const OracleView& theirs_;
  std::string name_;
  std::vector<std::string> out_;
  std::vector<std::string> notCompared_;
  size_t formOnlyValues_ = 0;  // attributes of forms no view decodes
  size_t strpOffsetsUnknown_ = 0;
  bool oursLacksStrpOffset_ = false;

  // `n` things of the input that one view cannot express, so were not compared;
  // said only where the input has some. `why` names the view that lacks them.
  void notCompared(size_t n, const std::string& one, const std::string& many, const std::string& why) {
    if (n) notCompared_.push_back(std::to_string(n) + " " + (n == 1 ? one : many) + " (" + why + ")");
  }
  // The view that lacks something: theirs, unless only ours does.
  const std::string& lacking(bool oursHas) const {
    static const std::string kOurs = "ours";
    return oursHas ? name_ : kOurs;
  }

  void diff(const std::string& where, const std::string& what, const std::string& a, const std::string& b) {
    out_.push_back(where + ": " + what + ": ours " + a + ", " + name_ + " " + b);
  }
  void diffNum(const std::string& where, const std::string& what, uint64_t a, uint64_t b) {
    if (a != b) diff(where, what, hex(a), hex(b));
  }

  void units() {
    std::map<uint64_t, const OracleUnit*> theirs;
    for (const OracleUnit& u : theirs_.units) theirs.emplace(u.offset, &u);
    for (const OracleUnit& u : ours_.units) {
      std::string where = at(".debug_info", u.offset);
      auto it = theirs.find(u.offset);
      if (it == theirs.end()) {
        diff(where, "unit", "a unit (length " + hex(u.length) + ")", "none");
        continue;
      }
      const OracleUnit& t = *it->second;
      theirs.erase(it);
      diffNum(where, "unit length", u.length, t.length);
      diffNum(where, "unit version", u.version, t.version);
      diffNum(where, "unit abbreviation offset", u.abbrevOffset, t.abbrevOffset);
      diffNum(where, "unit address size", u.addressSize, t.addressSize);
    }
    for (auto& [offset, t] : theirs) diff(at(".debug_info", offset), "unit", "none", "a unit (length " + hex(t->length) + ")");
  }

  void dies() {
    bool nulls = ours_.hasNullEntries && theirs_.hasNullEntries;
    if (!nulls && ours_.hasNullEntries != theirs_.hasNullEntries) {
      const OracleView& lister = ours_.hasNullEntries ? ours_ : theirs_;
      notCompared(std::count_if(lister.dies.begin(), lister.dies.end(), [](const OracleDie& d) { return d.tag == 0; }),
                  "NULL entry", "NULL entries", lacking(ours_.hasNullEntries) + " lists none");
    }
    std::map<uint64_t, const OracleDie*> theirs;
    for (const OracleDie& d : theirs_.dies)
      if (nulls || d.tag != 0) theirs.emplace(d.offset, &d);
    for (const OracleDie& d : ours_.dies) {
      if (!nulls && d.tag == 0) continue;
      std::string where = at(".debug_info", d.offset);
      auto it = theirs.find(d.offset);
      if (it == theirs.end()) {
        diff(where, "DIE", tagText(d.tag), "none");
        continue;
      }
      const OracleDie& t = *it->second;
      theirs.erase(it);
      if (d.tag != t.tag) {
        diff(where, "tag", tagText(d.tag), tagText(t.tag));
        continue;  // the attributes follow another abbreviation
      }
      if (d.depth != t.depth) diff(where, "depth", std::to_string(d.depth), std::to_string(t.depth));
      attributes(where, d, t);
    }
    for (auto& [offset, t] : theirs) diff(at(".debug_info", offset), "DIE", "none", tagText(t->tag));
    attributeParts();
  }

  void attributes(const std::string& where, const OracleDie& d, const OracleDie& t) {
    size_t n = std::min(d.attrs.size(), t.attrs.size());
    for (size_t i = 0; i < n; ++i) {
      const OracleAttr& a = d.attrs[i];
      const OracleAttr& b = t.attrs[i];
      if (a.name != b.name) {
        diff(where, "attribute " + std::to_string(i + 1), attrText(a.name), attrText(b.name));
        return;  // the rest would be shifted
      }
      if (a.form != b.form) {
        diff(where, attrText(a.name) + " form", formText(a.form), formText(b.form));
        continue;
      }
      countUncomparedParts(a, b);
      if (!sameValue(a, b)) diff(where, attrText(a.name), valueText(a), valueText(b));
    }
    if (d.attrs.size() != t.attrs.size()) {
      auto list = [](const OracleDie& x, size_t from) {
        std::string s;
        for (size_t i = from; i < x.attrs.size(); ++i) s += (s.empty() ? "" : " ") + attrText(x.attrs[i].name);
        return s;
      };
      diff(where, "attribute count", std::to_string(d.attrs.size()) + (d.attrs.size() > n ? " (" + list(d, n) + ")" : ""),
           std::to_string(t.attrs.size()) + (t.attrs.size() > n ? " (" + list(t, n) + ")" : ""));
    }
  }

  void countUncomparedParts(const OracleAttr& a, const OracleAttr& b) {
    if (!a.valueKnown || !b.valueKnown) return;  // a disagreement of its own
    if (a.kind == AttrKind::other) ++formOnlyValues_;
    if (a.form == dw::DW_FORM_strp && (a.u64 == UINT64_MAX || b.u64 == UINT64_MAX)) {
      ++strpOffsetsUnknown_;
      oursLacksStrpOffset_ |= a.u64 == UINT64_MAX;
    }
  }

  void attributeParts() {
    notCompared(formOnlyValues_, "attribute value", "attribute values",
                "of forms verify does not decode: compared by form only");
    notCompared(strpOffsetsUnknown_, "DW_FORM_strp offset", "DW_FORM_strp offsets",
                lacking(!oursLacksStrpOffset_) + " gives the string, not its .debug_str offset; the strings are "
                "compared");
  }

  static const char* kindText(OracleLocEntry::Kind k) {
    return k == OracleLocEntry::range ? "range" : k == OracleLocEntry::baseAddress ? "base address" : "end of list";
  }

  void loclists() {
    bool ends = ours_.hasLocEnd && theirs_.hasLocEnd;
    bool exprs = ours_.hasLocExprBytes && theirs_.hasLocExprBytes;
    size_t endsSkipped = 0, exprsSkipped = 0, offsetsUnknown = 0;
    bool oursLacksOffset = false;
    std::map<uint64_t, const OracleLocList*> theirs;
    for (const OracleLocList& l : theirs_.loclists) theirs.emplace(l.offset, &l);
    auto entries = [ends](const OracleLocList& l) {
      std::vector<const OracleLocEntry*> v;
      for (const OracleLocEntry& e : l.entries)
        if (ends || e.kind != OracleLocEntry::endOfList) v.push_back(&e);
      return v;
    };
    for (const OracleLocList& l : ours_.loclists) {
      std::string where = at(".debug_loc", l.offset);
      auto it = theirs.find(l.offset);
      if (it == theirs.end()) {
        diff(where, "location list", std::to_string(l.entries.size()) + " entries", "none");
        continue;
      }
      std::vector<const OracleLocEntry*> a = entries(l), b = entries(*it->second);
      if (!ends) {
        const OracleLocList& lister = ours_.hasLocEnd ? l : *it->second;
        endsSkipped += std::count_if(lister.entries.begin(), lister.entries.end(),
                                     [](const OracleLocEntry& e) { return e.kind == OracleLocEntry::endOfList; });
      }
      theirs.erase(it);
      for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        std::string w = at(".debug_loc", a[i]->offset);
        if (a[i]->offset == kUnknownOffset || b[i]->offset == kUnknownOffset) {
          ++offsetsUnknown;
          oursLacksOffset |= a[i]->offset == kUnknownOffset;
        } else if (a[i]->offset != b[i]->offset) {
          diff(where, "entry " + std::to_string(i) + " offset", hex(a[i]->offset), hex(b[i]->offset));
          break;
        }
        if (a[i]->kind != b[i]->kind) {
          diff(w, "entry kind", kindText(a[i]->kind), kindText(b[i]->kind));
          break;
        }
        if (a[i]->kind == OracleLocEntry::endOfList) continue;
        if (a[i]->kind == OracleLocEntry::range) diffNum(w, "begin", a[i]->begin, b[i]->begin);
        diffNum(w, a[i]->kind == OracleLocEntry::range ? "end" : "base address", a[i]->end, b[i]->end);
        if (a[i]->kind != OracleLocEntry::range) continue;
        if (!exprs) ++exprsSkipped;
        else if (a[i]->expr != b[i]->expr) diff(w, "expression", bytesText(a[i]->expr), bytesText(b[i]->expr));
      }
      if (a.size() != b.size())
        diff(where, "location list entries", std::to_string(a.size()), std::to_string(b.size()));
    }
    for (auto& [offset, l] : theirs)
      diff(at(".debug_loc", offset), "location list", "none", std::to_string(l->entries.size()) + " entries");
    notCompared(endsSkipped, "location list end entry", "location list end entries",
                lacking(ours_.hasLocEnd) + " lists none");
    notCompared(exprsSkipped, "location list expression", "location list expressions",
                lacking(ours_.hasLocExprBytes) + " gives no expression bytes");
    notCompared(offsetsUnknown, "location list entry offset", "location list entry offsets",
                lacking(!oursLacksOffset) + " gives the offsets of range entries only");
  }

  // The sets a view shows and the other can express: without empty sets where
  // either lacks them.
  std::vector<const OracleNameSet*> comparableNameSets(const OracleView& v) const {
    bool empties = ours_.hasEmptyNameSets && theirs_.hasEmptyNameSets;
    std::vector<const OracleNameSet*> sets;
    for (const OracleNameSet& s : v.nameSets)
      if (empties || s.names != 0) sets.push_back(&s);
    return sets;
  }

  void pubnames() {
    bool headers = ours_.hasNameSetHeaders && theirs_.hasNameSetHeaders;
    if (!headers && ours_.hasNameSetHeaders != theirs_.hasNameSetHeaders)
      notCompared((ours_.hasNameSetHeaders ? ours_ : theirs_).nameSets.size(), ".debug_pubnames set header",
                  ".debug_pubnames set headers", lacking(ours_.hasNameSetHeaders) + " gives none");
    if (headers) nameSetHeaders();
    const auto& a = ours_.pubnames;
    const auto& b = theirs_.pubnames;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
      if (a[i].dieOffset != b[i].dieOffset || a[i].name != b[i].name)
        diff(".debug_pubnames entry " + std::to_string(i), "name", hex(a[i].dieOffset) + " " + quoted(a[i].name),
             hex(b[i].dieOffset) + " " + quoted(b[i].name));
    if (a.size() != b.size()) diff(".debug_pubnames", "entries", std::to_string(a.size()), std::to_string(b.size()));
  }

  void nameSetHeaders() {
    std::vector<const OracleNameSet*> ours = comparableNameSets(ours_), theirs = comparableNameSets(theirs_);
    if (!(ours_.hasEmptyNameSets && theirs_.hasEmptyNameSets)) {
      const OracleView& lister = ours_.hasEmptyNameSets ? ours_ : theirs_;
      notCompared(std::count_if(lister.nameSets.begin(), lister.nameSets.end(),
                                [](const OracleNameSet& s) { return s.names == 0; }),
                  ".debug_pubnames set with no names", ".debug_pubnames sets with no names",
                  lacking(ours_.hasEmptyNameSets) + " sees a set only through its names");
    }
    unsigned bits = std::min(ours_.nameSetLengthBits, theirs_.nameSetLengthBits);
    uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    size_t longer = 0;  // lengths with bits past `mask`, of which only the low bits are compared
    for (size_t i = 0; i < std::min(ours.size(), theirs.size()); ++i) {
      const OracleNameSet& a = *ours[i];
      const OracleNameSet& b = *theirs[i];
      std::string where = ".debug_pubnames set " + std::to_string(ours[i] - ours_.nameSets.data());
      longer += (a.length & ~mask) != 0 || (b.length & ~mask) != 0;
      diffNum(where, bits >= 64 ? "length" : "length (low " + std::to_string(bits) + " bits)", a.length & mask,
              b.length & mask);
      diffNum(where, "version", a.version, b.version);
      diffNum(where, "unit offset", a.infoOffset, b.infoOffset);
      diffNum(where, "unit length", a.infoLength, b.infoLength);
    }
    if (ours.size() != theirs.size())
      diff(".debug_pubnames", "sets", std::to_string(ours.size()), std::to_string(theirs.size()));
    notCompared(longer, ".debug_pubnames set length past its low " + std::to_string(bits) + " bits",
                ".debug_pubnames set lengths past their low " + std::to_string(bits) + " bits",
                lacking(ours_.nameSetLengthBits >= theirs_.nameSetLengthBits) + " keeps " + std::to_string(bits));
  }

  void aranges() {
    if (ours_.hasArangeSetHeaders != theirs_.hasArangeSetHeaders)
      notCompared((ours_.hasArangeSetHeaders ? ours_ : theirs_).arangeSets.size(), ".debug_aranges set header",
                  ".debug_aranges set headers", lacking(ours_.hasArangeSetHeaders) + " gives none");
    if (ours_.hasArangeSetHeaders && theirs_.hasArangeSetHeaders) {
      for (size_t i = 0; i < std::min(ours_.arangeSets.size(), theirs_.arangeSets.size()); ++i) {
        const OracleArangeSet& a = ours_.arangeSets[i];
        const OracleArangeSet& b = theirs_.arangeSets[i];
        std::string where = ".debug_aranges set " + std::to_string(i);
        diffNum(where, "length", a.length, b.length);
        diffNum(where, "version", a.version, b.version);
        diffNum(where, "unit offset", a.infoOffset, b.infoOffset);
        diffNum(where, "address size", a.addressSize, b.addressSize);
        diffNum(where, "segment size", a.segmentSize, b.segmentSize);
      }
      if (ours_.arangeSets.size() != theirs_.arangeSets.size())
        diff(".debug_aranges", "sets", std::to_string(ours_.arangeSets.size()),
             std::to_string(theirs_.arangeSets.size()));
    }
    const auto& a = ours_.ranges;
    const auto& b = theirs_.ranges;
    auto text = [](const OracleRange& r) { return "[" + hex(r.address) + ", +" + hex(r.length) + ") of unit " + hex(r.infoOffset); };
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
      if (a[i].address != b[i].address || a[i].length != b[i].length || a[i].infoOffset != b[i].infoOffset)
        diff(".debug_aranges range " + std::to_string(i), "range", text(a[i]), text(b[i]));
    if (a.size() != b.size()) diff(".debug_aranges", "ranges", std::to_string(a.size()), std::to_string(b.size()));
  }
};

}  // namespace

Comparison compare(const OracleView& ours, const OracleView& theirs, std::string_view oracleName) {
  return Comparer(ours, theirs, oracleName).run();
}

std::vector<std::string> compareViews(const OracleView& ours, const OracleView& theirs, std::string_view oracleName) {
  return compare(ours, theirs, oracleName).disagreements;
}

}  // namespace ptxdump
