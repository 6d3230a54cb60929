#include "ptxdwarf/write/remap.h"

#include <algorithm>
#include <map>

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/leb128.h"
#include "text_edits.h"

namespace ptxdwarf::write {

std::optional<PathPrefixMap> parsePathPrefixMap(std::string_view arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  return PathPrefixMap{std::string(arg.substr(0, eq)), std::string(arg.substr(eq + 1))};
}

std::optional<std::string> remapPath(std::string_view path, std::span<const PathPrefixMap> maps) {
  for (auto it = maps.rbegin(); it != maps.rend(); ++it)  // GCC: the last option given is searched first
    if (path.starts_with(it->from)) return it->to + std::string(path.substr(it->from.size()));
  return std::nullopt;
}

namespace {

using namespace dw;

// Strings of one section replaced by others of another length, and where
// each old offset lands afterwards.
class Layout {
 public:
  struct Splice {
    uint64_t offset = 0, size = 0;  // the old characters
    std::string with{};
  };

  // False when it overlaps a splice already made at another offset.
  bool add(uint64_t offset, uint64_t size, std::string with) {
    auto it = std::lower_bound(splices_.begin(), splices_.end(), offset,
                               [](const Splice& s, uint64_t o) { return s.offset < o; });
    if (it != splices_.end() && it->offset == offset) return it->size == size && it->with == with;
    if (it != splices_.end() && offset + size > it->offset) return false;
    if (it != splices_.begin() && std::prev(it)->offset + std::prev(it)->size > offset) return false;
    splices_.insert(it, {offset, size, std::move(with)});
    return true;
  }
  bool empty() const { return splices_.empty(); }

  // Where old offset `x` is afterwards: past a splice, moved by the length
  // it changed by; inside one, as far into the new string as it can be.
  uint64_t moved(uint64_t x) const {
    int64_t delta = 0;
    for (const Splice& s : splices_) {  // a few per unit: the unit names and directories
      if (x < s.offset) break;
      if (x < s.offset + s.size)
        return static_cast<uint64_t>(static_cast<int64_t>(s.offset) + delta) + std::min<uint64_t>(x - s.offset, s.with.size());
      delta += static_cast<int64_t>(s.with.size()) - static_cast<int64_t>(s.size);
    }
    return static_cast<uint64_t>(static_cast<int64_t>(x) + delta);
  }
  bool overlaps(uint64_t offset, uint64_t size) const {
    return std::any_of(splices_.begin(), splices_.end(),
                       [&](const Splice& s) { return offset < s.offset + s.size && s.offset < offset + size; });
  }

  std::vector<uint8_t> apply(std::span<const uint8_t> bytes) const {
    std::vector<uint8_t> out;
    out.reserve(bytes.size());
    uint64_t at = 0;
    for (const Splice& s : splices_) {
      out.insert(out.end(), bytes.begin() + static_cast<ptrdiff_t>(at), bytes.begin() + static_cast<ptrdiff_t>(s.offset));
      out.insert(out.end(), s.with.begin(), s.with.end());
      at = s.offset + s.size;
    }
    out.insert(out.end(), bytes.begin() + static_cast<ptrdiff_t>(std::min<uint64_t>(at, bytes.size())), bytes.end());
    return out;
  }

 private:
  std::vector<Splice> splices_;  // by offset, not overlapping
};

void put(std::vector<uint8_t>& bytes, uint64_t at, uint64_t value, unsigned size) {
  for (unsigned i = 0; i < size && at + i < bytes.size(); ++i) bytes[at + i] = static_cast<uint8_t>(value >> (8 * i));
}

bool fits(uint64_t value, unsigned size) { return size >= 8 || value < (uint64_t{1} << (8 * size)); }

bool isPathAttribute(uint16_t name) { return name == DW_AT_name || name == DW_AT_comp_dir; }

class Remapper {
 public:
  Remapper(std::string_view text, const ptx::Module& m, const read::Dwarf& d, std::span<const PathPrefixMap> maps,
           const RemapOptions& o, Remapped& out)
      : text_(text), m_(m), d_(d), maps_(maps), options_(o), out_(out), lines_(text) {}

  void run() {
    if (d_.diagnostics.hasErrors()) {
      error(d_.diagnostics.items.front().loc,
            "the DWARF does not decode cleanly (see `ptxdump check`); paths are not moved in bytes that were not "
            "understood");
      return;
    }
    remapFiles();
    findStrings();
    if (!out_.ok()) return;
    std::vector<SectionImage> images = rebuildSections();
    if (!out_.ok()) return;
    write(std::move(images));
  }

 private:
  Diagnostic& error(SourceLoc at, std::string message) { return out_.diagnostics.error(at, std::move(message)); }

  // `.file N "path"`: the characters between the quotes, as written.
  void remapFiles() {
    for (const ptx::FileEntry& f : m_.files) {
      std::optional<std::string> to = remapPath(f.path, maps_);
      if (!to || *to == f.path) continue;
      if (to->find_first_of("\"\n\r") != std::string::npos) {
        error(f.loc, "the remapped path '" + *to + "' cannot be written in a PTX .file string");
        continue;
      }
      const uint64_t at = lines_.offset(f.loc.line, f.loc.col);
      const uint64_t quote = text_.find('"', at);
      if (quote == std::string_view::npos || text_.substr(quote + 1, f.path.size()) != f.path) {
        error(f.loc, "the path of this .file was not found where it was read");
        continue;
      }
      edits_.replace(quote + 1, quote + 1 + f.path.size(), *to);
      ++out_.stats.files;
    }
  }

  // The unit DIEs' names and directories, as splices of .debug_info or .debug_str.
  void findStrings() {
    for (const read::Unit& u : d_.units) {
      for (uint32_t i = 0; i < u.dieCount; ++i) {
        const read::Die& die = d_.dies[u.firstDie + i];
        if (die.isNull()) continue;
        for (const read::AttrValue& v : d_.attributes(die))
          if (isPathAttribute(v.name) && v.isString()) remapString(v);
        break;  // the unit DIE only
      }
    }
  }

  void remapString(const read::AttrValue& v) {
    const std::string_view s = v.string();
    std::optional<std::string> to = remapPath(s, maps_);
    if (!to || *to == s) return;
    if (to->find('\0') != std::string::npos) {
      error(d_.info->locate(v.offset), "a DWARF string cannot hold a NUL byte");
      return;
    }
    bool added = false;
    if (v.form == DW_FORM_string) {
      added = info_.add(v.offset, s.size(), *to);
    } else if (std::optional<uint64_t> at = v.form == DW_FORM_strp ? stringOffset(v) : std::nullopt) {
      added = str_.add(*at, s.size(), *to);  // a label there, or `.debug_str+N`, moves with it
    } else {
      error(d_.info->locate(v.offset), "a path whose .debug_str offset is not known here is not remapped");
      return;
    }
    if (!added) error(d_.info->locate(v.offset), "this path overlaps another path being remapped");
    else ++out_.stats.strings;
  }

  // Where a DW_FORM_strp's string starts in .debug_str: the number, the N
  // of `.debug_str+N`, or the offset of a label defined there.
  std::optional<uint64_t> stringOffset(const read::AttrValue& v) const {
    if (!d_.str) return std::nullopt;
    if (!v.reloc) return v.value;
    if (v.reloc->isDifference()) return std::nullopt;
    if (v.reloc->symbol == ".debug_str") return static_cast<uint64_t>(v.reloc->addend());
    const SectionLabel* label = d_.str->findLabel(v.reloc->symbol);
    if (!label) return std::nullopt;
    return label->offset + static_cast<uint64_t>(v.reloc->addend());
  }

  std::optional<uint64_t> movedAddend(const Relocation& r) const {
    if (r.isDifference()) return std::nullopt;
    if (r.symbol == ".debug_info" && !info_.empty()) return info_.moved(static_cast<uint64_t>(r.addend()));
    if (r.symbol == ".debug_str" && !str_.empty()) return str_.moved(static_cast<uint64_t>(r.addend()));
    return std::nullopt;
  }

  // `in` with its own splices made and every offset into .debug_info or
  // .debug_str it holds as a relocation moved.
  SectionImage rebuilt(const SectionImage& in, const Layout& own, bool& changed) {
    SectionImage out;
    out.name = in.name;
    out.loc = in.loc;
    out.blocks = in.blocks;
    out.bytes = own.apply(in.bytes);
    changed = !own.empty();
    for (const Relocation& r : in.relocations) {
      if (own.overlaps(r.offset, r.size)) {
        error(in.locate(r.offset), "a relocation inside a remapped string");
        continue;
      }
      std::optional<uint64_t> addend = movedAddend(r);
      changed |= addend && static_cast<int64_t>(*addend) != r.addend();
      out.addRelocation(own.moved(r.offset), r.size, r.symbol, r.minus(),
                        addend ? static_cast<int64_t>(*addend) : r.addend());
    }
    for (const SectionLabel& l : in.labels) out.labels.push_back({l.name, own.moved(l.offset), l.loc});
    for (uint32_t n : in.negativeOperands) out.negativeOperands.push_back(static_cast<uint32_t>(own.moved(n)));
    return out;
  }

  std::vector<SectionImage> rebuildSections() {
    std::vector<SectionImage> images;
    const Layout none;
    for (const SectionImage& s : m_.sections) {
      if (!s.name.starts_with(".debug")) continue;
      bool changed = false;
      const bool isInfo = &s == d_.info, isStr = &s == d_.str;
      SectionImage image = rebuilt(s, isInfo ? info_ : isStr ? str_ : none, changed);
      if (isInfo) changed |= patchInfo(image);
      if (&s == d_.pubnames) changed |= patchPubnames(image);
      if (&s == d_.aranges) changed |= patchAranges(image);
      if (changed || options_.allSections) images.push_back(std::move(image));
    }
    return images;
  }

  // A number at old offset `at` of `in` (now `image`): replaced where no
  // relocation stands (a relocated one moved with its label or addend).
  bool patch(const SectionImage& in, SectionImage& image, const Layout& own, uint64_t at, uint64_t value,
             unsigned size) {
    if (in.relocationOverlapping(at, size)) return false;
    if (!fits(value, size)) {
      error(in.locate(at), "a moved offset no longer fits its " + std::to_string(size) + "-byte field");
      return false;
    }
    put(image.bytes, own.moved(at), value, size);
    return true;
  }

  bool patchInfo(SectionImage& image) {
    if (info_.empty() && str_.empty()) return false;
    const SectionImage& in = *d_.info;
    for (const read::Unit& u : d_.units) {
      if (u.length >= 0xfffffff0) {
        error(in.locate(u.offset), "64-bit DWARF units are not remapped");
        return false;
      }
      patch(in, image, info_, u.offset, info_.moved(u.end) - info_.moved(u.offset) - 4, 4);
      for (uint32_t i = 0; i < u.dieCount; ++i) {
        const read::Die& die = d_.dies[u.firstDie + i];
        for (const read::AttrValue& v : d_.attributes(die)) patchValue(in, image, u, v);
      }
    }
    return true;
  }

  void patchValue(const SectionImage& in, SectionImage& image, const read::Unit& u, const read::AttrValue& v) {
    if (v.reloc) return;
    const unsigned size = static_cast<unsigned>(v.size);
    switch (v.form) {
      case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8:
        patch(in, image, info_, v.offset, info_.moved(v.value) - info_.moved(u.offset), size);
        return;
      case DW_FORM_ref_udata: {
        const uint64_t value = info_.moved(v.value) - info_.moved(u.offset);
        if (ulebSize(value) > size) {
          error(in.locate(v.offset), "a moved reference no longer fits its ULEB128 bytes");
          return;
        }
        const uint64_t at = info_.moved(v.offset);
        for (unsigned i = 0; i < size; ++i)  // the same width, padded as written
          image.bytes[at + i] = static_cast<uint8_t>(((value >> (7 * i)) & 0x7f) | (i + 1 < size ? 0x80 : 0));
        return;
      }
      case DW_FORM_ref_addr: patch(in, image, info_, v.offset, info_.moved(v.value), size); return;
      case DW_FORM_strp: patch(in, image, info_, v.offset, str_.moved(v.value), size); return;
      default: return;
    }
  }

  const read::Unit* unitAt(uint64_t offset) const {
    for (const read::Unit& u : d_.units)
      if (u.offset == offset) return &u;
    return nullptr;
  }

  // Each set's unit offset and length (4 and 4 bytes after unit_length and
  // version) and its entries' unit-relative DIE offsets.
  bool patchPubnames(SectionImage& image) {
    if (info_.empty()) return false;
    const SectionImage& in = *d_.pubnames;
    const Layout none;
    for (const read::NameSet& set : d_.pubnameSets) {
      patch(in, image, none, set.offset + 6, info_.moved(set.infoOffset), 4);
      const read::Unit* u = unitAt(set.infoOffset);
      if (!u) continue;
      const uint64_t length = info_.moved(u->end) - info_.moved(u->offset) - 4;
      if (set.infoLength == u->length) patch(in, image, none, set.offset + 10, length, 4);
      else if (set.infoLength == u->length + 4) patch(in, image, none, set.offset + 10, length + 4, 4);
      for (const read::NameEntry& e : set.entries)
        patch(in, image, none, e.offset, info_.moved(u->offset + e.dieOffset) - info_.moved(u->offset), 4);
    }
    return true;
  }

  bool patchAranges(SectionImage& image) {
    if (info_.empty()) return false;
    const Layout none;
    for (const read::ArangeSet& set : d_.arangeSets)
      patch(*d_.aranges, image, none, set.offset + 6, info_.moved(set.infoOffset), 4);
    return true;
  }

  void write(std::vector<SectionImage> images) {
    const std::string text = edits_.apply(text_);
    ptx::ReadResult again = ptx::read(text, m_.filename, {.bodies = false});
    if (!again.ok()) {
      out_.diagnostics = std::move(again.diagnostics);
      return;
    }
    WriteOptions options = options_.write;
    options.dwarf = nullptr;
    read::Dwarf dwarf;
    if (options.style == Style::verbose && options_.allSections) {  // the model of exactly these bytes
      dwarf = read::decode(images);
      options.dwarf = &dwarf;
    }
    std::optional<std::string> result = images.empty()
                                            ? std::optional<std::string>(text)
                                            : reformat(text, again.module, images, options, out_.diagnostics);
    if (result) out_.ptx = std::move(*result);
  }

  std::string_view text_;
  const ptx::Module& m_;
  const read::Dwarf& d_;
  std::span<const PathPrefixMap> maps_;
  const RemapOptions& options_;
  Remapped& out_;
  detail::LineIndex lines_;
  detail::TextEdits edits_;
  Layout info_, str_;
};

}  // namespace

Remapped remapPaths(std::string_view text, const ptx::Module& module, const read::Dwarf& dwarf,
                    std::span<const PathPrefixMap> maps, const RemapOptions& options) {
  Remapped out;
  Remapper(text, module, dwarf, maps, options, out).run();
  return out;
}

}  // namespace ptxdwarf::write
