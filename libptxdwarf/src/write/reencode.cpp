#include "ptxdwarf/write/reencode.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/leb128.h"
#include "../work.h"

namespace ptxdwarf::write {

using namespace dw;

namespace {

// How the round trip names a relocation that differs: source relocation
// `x` re-encoded as `y` (nullopt when they agree), one lost, one added.
std::optional<ImageDifference> changedRelocation(const SectionImage& e, const Relocation& x, const Relocation& y) {
  if (x.offset == y.offset && x.size == y.size && x.symbol == y.symbol &&
      x.isDifference() == y.isDifference() && (!x.isDifference() || x.minus() == y.minus()) && x.addend() == y.addend())
    return std::nullopt;
  return ImageDifference{e.name, std::min(x.offset, y.offset),
                         "relocation " + x.expression() + " re-encoded as " + y.expression() + " at offset " +
                             std::to_string(y.offset)};
}
ImageDifference lostRelocation(const SectionImage& e, const Relocation& r) {
  return {e.name, r.offset, "relocation lost: " + r.expression()};
}
ImageDifference addedRelocation(const SectionImage& e, const Relocation& r) {
  return {e.name, r.offset, "relocation added: " + r.expression()};
}

// The round trip's comparison of a section written front to back, made as
// each value is written instead of on a whole re-encoded image (1 MB and
// 0.3 MB of relocation references for a 20 MB nvcc -G file's .debug_info):
// the writer hands it each value's bytes, or a fixed-size value whole, and
// each relocation as it copies it, and finish() says what compareSection
// would say of the image.
class StreamComparison {
 public:
  explicit StreamComparison(const SectionImage& source) : source_(source) {}

  // The next `n` bytes written.
  void bytes(const uint8_t* written, uint64_t n) {
    if (byteAt_ == kNone && taken_ < source_.bytes.size()) {
      const uint64_t have = std::min<uint64_t>(n, source_.bytes.size() - taken_);
      const uint8_t* source = source_.bytes.data() + taken_;
      if (std::memcmp(source, written, static_cast<size_t>(have)) != 0) differs(source, written, have);
    }
    taken_ += n;
  }
  // The next `size` bytes written: `v`, little-endian (zero past the eighth
  // byte). The usual value is compared with one load of the source's bytes.
  void fixed(uint64_t v, unsigned size) {
    if (byteAt_ == kNone && size <= 8 && source_.bytes.size() - std::min<uint64_t>(taken_, source_.bytes.size()) >= 8) {
      uint64_t source;
      std::memcpy(&source, source_.bytes.data() + taken_, 8);
      if constexpr (std::endian::native == std::endian::little) {
        const uint64_t mask = size == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * size)) - 1;
        if (((source ^ v) & mask) == 0) {
          taken_ += size;
          return;
        }
      }
    }
    uint8_t le[16] = {};
    storeLittleEndian(std::span(le, std::min<size_t>(size, sizeof le)), v);
    if (size <= sizeof le) return bytes(le, size);
    for (unsigned i = 0; i < size; ++i) bytes(i < 8 ? le + i : le + 8, 1);
  }
  uint64_t taken() const { return taken_; }

  // The next re-encoded relocation: source relocation `index` at `offset`.
  void relocation(uint32_t offset, size_t index) {
    const size_t i = relocations_++;
    if (relocationDifference_) return;
    Relocation y = source_.relocations[index];
    y.offset = offset;
    relocationDifference_ = i < source_.relocations.size() ? changedRelocation(source_, source_.relocations[i], y)
                                                           : addedRelocation(source_, y);
  }

  // After the last byte and relocation: the first difference, as
  // compareSection orders them (bytes, size, relocations).
  std::optional<ImageDifference> finish() const {
    if (byteAt_ != kNone)
      return ImageDifference{source_.name, byteAt_, "byte " + std::to_string(source_.bytes[byteAt_]) +
                                                        " re-encoded as " + std::to_string(byteWritten_)};
    if (taken_ != source_.bytes.size())
      return ImageDifference{source_.name, std::min<uint64_t>(taken_, source_.bytes.size()),
                             "size " + std::to_string(source_.bytes.size()) + " re-encoded as " +
                                 std::to_string(taken_)};
    if (relocationDifference_) return relocationDifference_;
    if (relocations_ < source_.relocations.size()) return lostRelocation(source_, source_.relocations[relocations_]);
    return std::nullopt;
  }

 private:
  void differs(const uint8_t* source, const uint8_t* written, uint64_t n) {
    const uint64_t i = static_cast<uint64_t>(std::mismatch(source, source + n, written).first - source);
    byteAt_ = taken_ + i;
    byteWritten_ = written[i];
  }

  static constexpr uint64_t kNone = UINT64_MAX;
  const SectionImage& source_;
  uint64_t taken_ = 0;
  uint64_t byteAt_ = kNone;  // the first byte that differs
  uint8_t byteWritten_ = 0;
  size_t relocations_ = 0;
  std::optional<ImageDifference> relocationDifference_;  // the first, or the first added
};

// Where preserve-mode encoding puts one section: into `image`, its bytes
// and its relocations copied; or, with `compare`, nowhere: each value is
// compared as it is written.
struct PreserveOutput {
  SectionImage* image = nullptr;
  StreamComparison* compare = nullptr;
};

// Appends bytes and copies relocations of the source section that fall in
// the copied range, so symbolic operands survive re-encoding.
class PreserveWriter {
 public:
  // The output is the source's size when the round trip holds, and its
  // relocations name the same symbols: reserve that, and share the source's
  // name store instead of copying every name.
  PreserveWriter(PreserveOutput out, const SectionImage* source) : out_(out), src_(source) {
    if (!src_ || out_.compare) return;
    out_.image->bytes.reserve(src_->bytes.size());
    out_.image->relocations.reserve(src_->relocations.size());
    out_.image->names = src_->names;
  }

  void fixed(uint64_t v, unsigned size) {
    if (out_.compare) out_.compare->fixed(v, size);
    else appendLittleEndian(out_.image->bytes, v, size);
  }
  // ULEB128 padded to `width` bytes (inputs may pad; preserve keeps it).
  void uleb(uint64_t v, uint64_t width) { leb(v, width); }
  void sleb(int64_t v, uint64_t width) { leb(static_cast<uint64_t>(v), width, true); }
  // A header field that was `value` in the input, or zero-filled there when a
  // relocation (such as a label difference) covers it.
  void field(uint64_t sourceOffset, uint64_t value, unsigned size) {
    bool symbolic = src_ && src_->relocationOverlapping(sourceOffset, size);
    fixed(symbolic ? 0 : value, size);
  }
  void raw(std::span<const uint8_t> b) {
    if (out_.compare) out_.compare->bytes(b.data(), b.size());
    else out_.image->bytes.insert(out_.image->bytes.end(), b.begin(), b.end());
  }
  void string(std::string_view s) {
    raw(std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
    fixed(0, 1);
  }
  // Copies the source relocations inside [from, from+size) to the same
  // relative place after `at` (the output offset the range was written to).
  void relocationsOf(uint64_t from, uint64_t size, uint64_t at) {
    if (!src_) return;
    const std::vector<Relocation>& source = src_->relocations;
    // The usual value holds none: the last range's relocations all lie
    // before it, and the next one past it.
    if ((next_ == 0 || (next_ <= source.size() && source[next_ - 1].offset < from)) &&
        (next_ >= source.size() || source[next_].offset >= from + size))
      return;
    for (next_ = firstAtOrAfter(from); next_ < source.size() && source[next_].offset < from + size; ++next_) {
      const Relocation& r = source[next_];
      const auto offset = static_cast<uint32_t>(at + (r.offset - from));
      if (out_.compare) {
        out_.compare->relocation(offset, next_);
      } else {
        Relocation moved = r;  // a difference's names stay the source's
        moved.offset = offset;
        out_.image->relocations.push_back(moved);
      }
    }
  }
  uint64_t offset() const { return out_.compare ? out_.compare->taken() : out_.image->bytes.size(); }

 private:
  // The index of the first source relocation at or after `from`. Values are
  // written in offset order, a few bytes apart: a step or two on from the
  // last one found, not a binary search per value (300,000 of them in a
  // 20 MB nvcc -G file's .debug_info). A range further on, or behind, is
  // searched for.
  size_t firstAtOrAfter(uint64_t from) const {
    const std::vector<Relocation>& source = src_->relocations;
    size_t i = next_;
    if (i > source.size() || (i > 0 && source[i - 1].offset >= from)) i = 0;  // behind: search it all
    for (unsigned steps = 0; i < source.size() && source[i].offset < from; ++i) {
      if (++steps == kSteps)
        return static_cast<size_t>(std::lower_bound(source.begin() + static_cast<ptrdiff_t>(i), source.end(), from,
                                                    [](const Relocation& r, uint64_t o) { return r.offset < o; }) -
                                   source.begin());
    }
    return i;
  }
  static constexpr unsigned kSteps = 8;
  // LEB128 (signed when `sign`) padded to `width` bytes, written or compared.
  void leb(uint64_t v, uint64_t width, bool sign = false) {
    uint8_t b[16];
    const bool small = width <= sizeof b;
    for (uint64_t i = 0; i < width; ++i) {
      const uint8_t byte = static_cast<uint8_t>((v & 0x7f) | (i + 1 < width ? 0x80 : 0));
      v = sign ? static_cast<uint64_t>(static_cast<int64_t>(v) >> 7) : v >> 7;
      if (small) b[i] = byte;
      else raw(std::span(&byte, 1));
    }
    if (small) raw(std::span(b, static_cast<size_t>(width)));
  }

  PreserveOutput out_;
  const SectionImage* src_;
  size_t next_ = 0;  // where the last range's relocations ended
};

void preserveAbbrevs(const read::Dwarf& dwarf, PreserveOutput out) {
  PreserveWriter w(out, dwarf.abbrev);
  for (const read::AbbrevTable* t : dwarf.tablesInOrder()) {
    while (w.offset() < t->offset) w.fixed(0, 1);  // bytes no unit uses: unknown, zero
    for (const read::Abbrev& a : t->abbrevs) {
      w.uleb(a.code, ulebSize(a.code));
      w.uleb(a.tag, ulebSize(a.tag));
      w.fixed(a.hasChildren, 1);
      for (const read::AttrSpec& s : t->specsOf(a)) {
        w.uleb(s.name, ulebSize(s.name));
        w.uleb(s.form, ulebSize(s.form));
      }
      w.fixed(0, 2);
    }
    if (t->terminated) w.fixed(0, 1);
  }
}

void preserveValue(PreserveWriter& w, const read::AttrValue& v, const read::Unit& unit) {
  if (v.indirect) w.uleb(v.form, v.formCodeSize);
  uint64_t valueAt = w.offset();
  uint64_t raw = v.value;
  switch (v.form) {
    case DW_FORM_ref1:
    case DW_FORM_ref2:
    case DW_FORM_ref4:
    case DW_FORM_ref8:
    case DW_FORM_ref_udata:
      raw -= unit.offset;  // the model holds absolute offsets
      break;
    default:
      break;
  }
  switch (v.form) {
    case DW_FORM_string: w.string(v.string()); break;
    case DW_FORM_sdata: w.sleb(v.svalue(), v.size); break;
    case DW_FORM_udata:
    case DW_FORM_ref_udata: w.uleb(raw, v.size); break;
    case DW_FORM_flag_present: break;
    case DW_FORM_block1:
    case DW_FORM_block2:
    case DW_FORM_block4:
    case DW_FORM_block:
    case DW_FORM_exprloc: {
      uint64_t lengthWidth = v.value - v.offset;
      if (v.form == DW_FORM_block || v.form == DW_FORM_exprloc) w.uleb(v.block().size(), lengthWidth);
      else w.fixed(v.block().size(), static_cast<unsigned>(lengthWidth));
      w.raw(v.block());
      break;
    }
    default:
      w.fixed(raw, static_cast<unsigned>(v.size));  // every fixed-size form
  }
  w.relocationsOf(v.offset, v.size, valueAt);
}

void preserveInfo(const read::Dwarf& dwarf, PreserveOutput out, Diagnostics& diags) {
  PreserveWriter w(out, dwarf.info);
  for (const read::Unit& u : dwarf.units) {
    if (w.offset() != u.offset) {
      diags.error({}, "round trip: unit at " + std::to_string(u.offset) + " re-encoded at " + std::to_string(w.offset()));
      return;
    }
    w.fixed(u.length, 4);
    w.fixed(u.version, 2);
    uint64_t abbrevAt = w.offset();
    w.fixed(u.abbrevReloc ? 0 : u.abbrevOffset, 4);
    w.relocationsOf(u.offset + 6, 4, abbrevAt);
    w.fixed(u.addressSize, 1);
    for (uint32_t i = 0; i < u.dieCount; ++i) {
      const read::Die& d = dwarf.dies[u.firstDie + i];
      uint64_t end = i + 1 < u.dieCount ? dwarf.dies[u.firstDie + i + 1].offset : u.end;
      const read::AttrRange attrs = dwarf.attributes(d);
      uint64_t codeEnd = attrs.empty() ? end : d.offset + d.codeSize;
      w.uleb(dwarf.abbrevCode(d), codeEnd > d.offset ? codeEnd - d.offset : 1);
      for (const read::AttrValue& v : attrs) preserveValue(w, v, u);
    }
    // Bytes the decoder did not reach (after an error) cannot be reproduced.
    while (w.offset() < u.end) w.fixed(0, 1);
  }
}

// One past the last byte the lists cover: the re-encoded section's size.
uint64_t locImageSize(const read::Dwarf& dwarf) {
  uint64_t size = 0;
  for (const read::LocList& list : dwarf.locLists) size = std::max(size, list.end);
  return size;
}

// Lists may share bytes (one starting inside another), so each entry is
// written at its own offset, not appended list after list: hands `w` every
// field of every entry (w.put(at, value, bytes), w.copy(at, bytes)) and
// returns the source relocations the entries cover, marked by index (a bit
// each, where a pointer each was 0.7 MB for a 20 MB nvcc -G file): index
// order is offset order, and lists that share entries mark the same ones.
template <class Writer>
std::vector<bool> writeLocEntries(const read::Dwarf& dwarf, Writer& w) {
  const std::vector<Relocation>* source = dwarf.loc ? &dwarf.loc->relocations : nullptr;
  std::vector<bool> covered(source ? source->size() : 0);
  auto keep = [&](const Relocation* r) {
    if (r) covered[static_cast<size_t>(r - source->data())] = true;
  };
  // Lists that share a tail share the entries: each is written once (the
  // first list that holds it), so that thousands of lists into one do not
  // rewrite its tail each.
  std::vector<bool> written(dwarf.allLocEntries().size());
  for (const read::LocList& list : dwarf.locLists) {
    const unsigned as = list.addressSize;
    for (size_t i = 0; i < list.entries.size(); ++i) {
      work::step(work::locListEntries);
      const read::LocEntryRef& ref = list.entries.refs()[i];  // in the storage: locEntryIndex locates it there
      if (const size_t index = dwarf.locEntryIndex(ref); index != SIZE_MAX) {
        if (written[index]) break;  // and the rest of this tail with it
        written[index] = true;
      }
      const read::LocEntry e = list.entries[i];
      w.put(e.offset, e.beginReloc ? 0 : e.begin, as);
      w.put(e.offset + as, e.endReloc ? 0 : e.end, as);
      keep(e.beginReloc);
      keep(e.endReloc);
      if (e.kind != read::LocEntry::range) continue;
      w.put(e.exprOffset - 2, e.expr.size(), 2);
      w.copy(e.exprOffset, e.expr);
      if (!source) continue;
      // The expression's relocations: from the entry's first relocation,
      // past the few in its addresses and length (a search of all of them
      // for each of 50,000 entries was 7 M instructions of a check).
      size_t k = ref.firstReloc;
      while (k < source->size() && (*source)[k].offset < e.exprOffset) ++k;
      for (; k < source->size() && (*source)[k].offset < e.exprOffset + e.expr.size(); ++k) keep(&(*source)[k]);
    }
  }
  return covered;
}

// writeLocEntries into an image.
struct LocImageWriter {
  std::vector<uint8_t>& bytes;
  void put(uint64_t at, uint64_t v, unsigned n) { storeLittleEndian(std::span(bytes).subspan(at, n), v); }
  void copy(uint64_t at, std::span<const uint8_t> b) {
    std::copy(b.begin(), b.end(), bytes.begin() + static_cast<ptrdiff_t>(at));
  }
};

// (Never compared as written: locDifference does that.)
void preserveLoc(const read::Dwarf& dwarf, SectionImage& image) {
  image.bytes.assign(locImageSize(dwarf), 0);
  LocImageWriter w{image.bytes};
  const std::vector<bool> covered = writeLocEntries(dwarf, w);
  // The entries were written at their own offsets: the source's relocations as they are.
  image.relocations.reserve(static_cast<size_t>(std::count(covered.begin(), covered.end(), true)));
  if (dwarf.loc) image.names = dwarf.loc->names;  // the names stay where the source keeps them
  for (size_t i = 0; i < covered.size(); ++i)
    if (covered[i]) image.relocations.push_back(dwarf.loc->relocations[i]);
}

void preservePubnames(const read::Dwarf& dwarf, PreserveOutput out) {
  PreserveWriter w(out, dwarf.pubnames);
  for (const read::NameSet& s : dwarf.pubnameSets) {
    uint64_t at = w.offset();
    // Length fields may be `A-B`: copy their relocations, write what the input held.
    w.field(s.offset, s.length, 4);
    w.fixed(s.version, 2);
    w.field(s.offset + 6, s.infoOffset, 4);
    w.field(s.offset + 10, s.infoLength, 4);
    w.relocationsOf(s.offset, 14, at);
    for (const read::NameEntry& e : s.entries) {
      w.fixed(e.dieOffset, 4);
      w.string(e.name);
    }
    w.fixed(0, 4);
  }
}

void preserveAranges(const read::Dwarf& dwarf, PreserveOutput out) {
  PreserveWriter w(out, dwarf.aranges);
  for (const read::ArangeSet& s : dwarf.arangeSets) {
    uint64_t at = w.offset();
    w.field(s.offset, s.length, 4);
    w.fixed(s.version, 2);
    w.field(s.offset + 6, s.infoOffset, 4);
    w.fixed(s.addressSize, 1);
    w.fixed(s.segmentSize, 1);
    uint64_t tuple = 2u * s.addressSize;
    while ((w.offset() - at) % tuple) w.fixed(0, 1);
    w.relocationsOf(s.offset, w.offset() - at, at);
    for (const read::Range& r : s.ranges) {
      uint64_t rat = w.offset();
      w.fixed(r.addressReloc ? 0 : r.address, s.addressSize);
      w.fixed(r.lengthReloc ? 0 : r.length, s.addressSize);
      w.relocationsOf(r.offset, tuple, rat);
    }
    w.fixed(0, static_cast<unsigned>(tuple));
    while (w.offset() < s.next) w.fixed(0, 1);  // the padding the decoder skipped
  }
}

// Encodes `in` as preserve mode models it; false when it does not model it
// (.debug_str, .debug_macinfo, ...: such a section is copied).
bool preserve(const read::Dwarf& dwarf, const SectionImage& in, PreserveOutput out, Diagnostics& diags) {
  if (&in == dwarf.abbrev) preserveAbbrevs(dwarf, out);
  else if (&in == dwarf.info) preserveInfo(dwarf, out, diags);
  else if (&in == dwarf.loc) preserveLoc(dwarf, *out.image);
  else if (&in == dwarf.pubnames) preservePubnames(dwarf, out);
  else if (&in == dwarf.aranges) preserveAranges(dwarf, out);
  else return false;
  return true;
}

// The relocations, once the bytes agree; the re-encoded ones given by count
// and index (an image's, or the source's that .debug_loc's entries cover).
template <typename ActualRelocation>
std::optional<ImageDifference> compareRelocations(const SectionImage& e, size_t actualRelocations,
                                                  ActualRelocation actualRelocation) {
  size_t m = std::min(e.relocations.size(), actualRelocations);
  for (size_t i = 0; i < m; ++i)
    if (auto changed = changedRelocation(e, e.relocations[i], actualRelocation(i))) return changed;
  if (e.relocations.size() > m) return lostRelocation(e, e.relocations[m]);
  if (actualRelocations > m) return addedRelocation(e, actualRelocation(m));
  return std::nullopt;
}

// compareImages() for one section.
std::optional<ImageDifference> compareSection(const SectionImage& e, const SectionImage& actual) {
  const std::vector<uint8_t>& actualBytes = actual.bytes;
  size_t n = std::min(e.bytes.size(), actualBytes.size());
  auto mismatch = std::mismatch(e.bytes.begin(), e.bytes.begin() + static_cast<ptrdiff_t>(n), actualBytes.begin());
  if (mismatch.first != e.bytes.begin() + static_cast<ptrdiff_t>(n)) {
    uint64_t off = static_cast<uint64_t>(mismatch.first - e.bytes.begin());
    return ImageDifference{e.name, off, "byte " + std::to_string(*mismatch.first) + " re-encoded as " +
                                            std::to_string(*mismatch.second)};
  }
  if (e.bytes.size() != actualBytes.size())
    return ImageDifference{e.name, n, "size " + std::to_string(e.bytes.size()) + " re-encoded as " +
                                          std::to_string(actualBytes.size())};
  return compareRelocations(e, actual.relocations.size(), [&](size_t i) { return actual.relocations[i]; });
}

}  // namespace

SectionImage encodePreserve(const read::Dwarf& dwarf, const SectionImage& in, Diagnostics& diags) {
  SectionImage img;
  img.name = in.name;
  if (!preserve(dwarf, in, PreserveOutput{&img}, diags)) return in;
  img.labels = in.labels;  // labels mark offsets; the same offsets if the round trip holds
  return img;
}

// writeLocEntries comparing each byte with the source's as it is made,
// instead of into an image (1.1 MB for a 20 MB nvcc -G file, with 0.7 MB
// of relocation references): the bytes it wrote, the first that differs,
// and whether an entry wrote over bytes another had written (malformed
// lists that overlap: the image keeps the last write, which only the image
// can tell).
// A bit per byte of the section, a word at a time: which bytes an entry wrote.
class WrittenBytes {
 public:
  explicit WrittenBytes(uint64_t size) : words_(static_cast<size_t>((size + 63) / 64)) {}
  // Marks [at, at + n); true when any of them was marked already.
  bool mark(uint64_t at, uint64_t n) {
    bool before = false;
    for (uint64_t end = at + n; at < end;) {
      const uint64_t bit = at % 64, count = std::min<uint64_t>(64 - bit, end - at);
      const uint64_t mask = (count == 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1) << bit;
      uint64_t& word = words_[static_cast<size_t>(at / 64)];
      before = before || (word & mask) != 0;
      word |= mask;
      at += count;
    }
    return before;
  }
  // The first byte before `end` no entry wrote; `end` when there is none.
  uint64_t firstUnwritten(uint64_t end) const {
    for (uint64_t w = 0; w * 64 < end; ++w) {
      if (words_[static_cast<size_t>(w)] == ~uint64_t{0}) continue;
      const uint64_t at = w * 64 + static_cast<uint64_t>(std::countr_one(words_[static_cast<size_t>(w)]));
      return std::min(at, end);
    }
    return end;
  }
  bool marked(uint64_t at) const { return words_[static_cast<size_t>(at / 64)] >> (at % 64) & 1; }

 private:
  std::vector<uint64_t> words_;
};

struct LocComparer {
  std::span<const uint8_t> source;
  WrittenBytes written;  // the re-encoded section's size
  uint64_t firstDifference = UINT64_MAX;
  uint8_t differentByte = 0;  // what was written there
  bool overlapped = false;

  void put(uint64_t at, uint64_t v, unsigned n) {
    uint8_t bytes[8];
    storeLittleEndian(std::span(bytes, n), v);
    copy(at, std::span<const uint8_t>(bytes, n));
  }
  void copy(uint64_t at, std::span<const uint8_t> b) {
    if (written.mark(at, b.size())) overlapped = true;
    if (at >= firstDifference || at >= source.size()) return;  // only the first difference is reported
    const uint64_t n = std::min<uint64_t>(b.size(), source.size() - at);
    if (std::memcmp(source.data() + at, b.data(), static_cast<size_t>(n)) == 0) return;
    const uint64_t i = static_cast<uint64_t>(std::mismatch(b.begin(), b.begin() + static_cast<ptrdiff_t>(n),
                                                            source.begin() + static_cast<ptrdiff_t>(at)).first -
                                             b.begin());
    if (at + i < firstDifference) {
      firstDifference = at + i;
      differentByte = b[i];
    }
  }
};

// preserveDifference for .debug_loc: what compareSection would say of the
// image preserveLoc makes, without making it.
std::optional<ImageDifference> locDifference(const read::Dwarf& dwarf, const SectionImage& in) {
  const uint64_t size = locImageSize(dwarf);
  LocComparer c{in.bytes, WrittenBytes(size)};
  const std::vector<bool> covered = writeLocEntries(dwarf, c);
  if (c.overlapped) {  // malformed, and rare: compared on the image
    SectionImage image;
    preserveLoc(dwarf, image);
    return compareSection(in, image);
  }
  // A byte no entry wrote is zero in the image.
  const uint64_t n = std::min<uint64_t>(size, in.bytes.size());
  for (uint64_t i = c.written.firstUnwritten(std::min(n, c.firstDifference)); i < std::min(n, c.firstDifference); ++i) {
    if (!c.written.marked(i) && in.bytes[i] != 0) {
      c.firstDifference = i;
      c.differentByte = 0;
      break;
    }
  }
  if (c.firstDifference < n)
    return ImageDifference{in.name, c.firstDifference, "byte " + std::to_string(in.bytes[c.firstDifference]) +
                                                           " re-encoded as " + std::to_string(c.differentByte)};
  if (in.bytes.size() != size)
    return ImageDifference{in.name, n, "size " + std::to_string(in.bytes.size()) + " re-encoded as " +
                                          std::to_string(size)};
  // The covered relocations, in order, each at its own offset.
  size_t next = 0;
  return compareRelocations(in, static_cast<size_t>(std::count(covered.begin(), covered.end(), true)),
                            [&](size_t) {
                              while (!covered[next]) ++next;
                              return in.relocations[next++];
                            });
}

std::optional<ImageDifference> preserveDifference(const read::Dwarf& dwarf, const SectionImage& in,
                                                  Diagnostics& diags) {
  if (&in == dwarf.loc) return locDifference(dwarf, in);
  StreamComparison comparison(in);
  if (!preserve(dwarf, in, PreserveOutput{nullptr, &comparison}, diags)) return std::nullopt;  // copied: the same
  return comparison.finish();
}

std::vector<SectionImage> encodePreserve(const read::Dwarf& dwarf, Diagnostics& diags) {
  std::vector<SectionImage> out;
  out.reserve(dwarf.sections.size());
  for (const SectionImage& in : dwarf.sections) out.push_back(encodePreserve(dwarf, in, diags));
  return out;
}

std::optional<ImageDifference> compareImages(std::span<const SectionImage> expected,
                                             std::span<const SectionImage> actual) {
  // The last actual image of each name, as findSection picks (a map: a scan
  // per section is quadratic in a file of many sections).
  std::map<std::string_view, const SectionImage*, work::CountingLess<work::sectionLookup>> lastOfName;
  for (const SectionImage& s : actual) lastOfName[s.name] = &s;
  for (const SectionImage& e : expected) {
    const auto found = lastOfName.find(e.name);
    const SectionImage* a = found == lastOfName.end() ? nullptr : found->second;
    if (!a) return ImageDifference{e.name, 0, "section missing after re-encoding"};
    if (auto diff = compareSection(e, *a)) return diff;
  }
  return std::nullopt;
}

}  // namespace ptxdwarf::write

