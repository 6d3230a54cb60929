#include "ptxdwarf/elf/elf.h"

#include <algorithm>
#include <cstring>

#include "../work.h"
#include "ptxdwarf/format.h"

namespace ptxdwarf::elf {

namespace {

constexpr size_t kHeaderSize = 64, kSectionHeaderSize = 64, kSymbolSize = 24, kRelSize = 16, kRelaSize = 24;
constexpr uint16_t kXIndex = 0xffff;  // SHN_XINDEX: the real index is in section 0

// Little-endian fields of an ELF64 file; the caller has checked the range.
uint64_t readLe(std::span<const uint8_t> bytes, uint64_t at, unsigned size) {
  uint64_t v = 0;
  for (unsigned i = 0; i < size; ++i) v |= uint64_t{bytes[at + i]} << (8 * i);
  return v;
}

// [offset, offset + size) inside a file of `fileSize` bytes, without overflowing.
bool inside(uint64_t offset, uint64_t size, uint64_t fileSize) {
  return offset <= fileSize && size <= fileSize - offset;
}

// Sets `error`; `return fail(error, ...)` ends a reader that yields an optional.
std::nullopt_t fail(Error& error, std::string message, uint64_t offset) {
  error = Error{std::move(message), offset};
  return std::nullopt;
}

// The NUL-terminated string at `at` of a string table; nullopt when `at` is
// outside it or no NUL ends the string inside it.
std::optional<std::string_view> stringAt(std::span<const uint8_t> table, uint64_t at) {
  if (at >= table.size()) return std::nullopt;
  const uint8_t* begin = table.data() + at;
  const void* nul = std::memchr(begin, 0, table.size() - at);
  if (!nul) return std::nullopt;
  return std::string_view(reinterpret_cast<const char*>(begin), static_cast<const uint8_t*>(nul) - begin);
}

Section readSectionHeader(std::span<const uint8_t> bytes, uint64_t at, uint32_t index) {
  Section s;
  s.index = index;
  s.type = static_cast<uint32_t>(readLe(bytes, at + 4, 4));
  s.flags = readLe(bytes, at + 8, 8);
  s.address = readLe(bytes, at + 16, 8);
  s.offset = readLe(bytes, at + 24, 8);
  s.size = readLe(bytes, at + 32, 8);
  s.link = static_cast<uint32_t>(readLe(bytes, at + 40, 4));
  s.info = static_cast<uint32_t>(readLe(bytes, at + 44, 4));
  s.addressAlign = readLe(bytes, at + 48, 8);
  s.entrySize = readLe(bytes, at + 56, 8);
  return s;
}

bool holdsFileBytes(uint32_t type, uint16_t machine) {
  if (type == SHT_NULL || type == SHT_NOBITS) return false;
  const bool cudaUninitialized = type == SHT_CUDA_GLOBAL || type == SHT_CUDA_LOCAL || type == SHT_CUDA_SHARED;
  return !(machine == EM_CUDA && cudaUninitialized);
}

bool hasBytes(const Section& s) { return s.inFile && s.size != 0; }

// No two sections' bytes share a byte of the file unless they are the same
// bytes (a section partly overlapping another is a damaged or hostile file:
// its contents would be read twice with two meanings).
std::optional<Error> overlap(const std::vector<Section>& sections) {
  std::vector<const Section*> placed;
  for (const Section& s : sections)
    if (hasBytes(s)) placed.push_back(&s);
  std::sort(placed.begin(), placed.end(), [](const Section* a, const Section* b) { return a->offset < b->offset; });
  for (size_t i = 1; i < placed.size(); ++i) {
    const Section& a = *placed[i - 1];
    const Section& b = *placed[i];
    // The same bytes under two names (sm_100 cubins alias `.nv_debug_ptx_txt`
    // as `.nv.merc.nv_debug_ptx_txt`) are one content, not a conflict.
    if (a.offset == b.offset && a.size == b.size) continue;
    if (a.offset + a.size > b.offset)
      return Error{"sections " + std::to_string(a.index) + " and " + std::to_string(b.index) + " overlap (" +
                       hex(a.offset) + "+" + hex(a.size) + " and " + hex(b.offset) + "+" + hex(b.size) + ")",
                   b.offset};
  }
  return std::nullopt;
}

}  // namespace

bool hasElfMagic(std::span<const uint8_t> bytes) {
  return bytes.size() >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F';
}

bool hasElfMagic(std::string_view bytes) {
  return hasElfMagic(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

std::optional<File> File::parse(std::span<const uint8_t> bytes, Error& error) {
  if (!hasElfMagic(bytes)) return fail(error, "not an ELF file (no \\x7fELF magic)", 0);
  if (bytes.size() < kHeaderSize)
    return fail(error, "truncated ELF header: " + std::to_string(bytes.size()) + " bytes, 64 needed", bytes.size());
  if (bytes[4] != 2)
    return fail(error, "not a 64-bit ELF file (EI_CLASS " + std::to_string(bytes[4]) + "); cubins are ELF64", 4);
  if (bytes[5] != 1) return fail(error, "not a little-endian ELF file (EI_DATA " + std::to_string(bytes[5]) + ")", 5);
  File f;
  f.bytes_ = bytes;
  f.header_.osabi = bytes[7];
  f.header_.abiVersion = bytes[8];
  f.header_.type = static_cast<uint16_t>(readLe(bytes, 16, 2));
  f.header_.machine = static_cast<uint16_t>(readLe(bytes, 18, 2));
  f.header_.flags = static_cast<uint32_t>(readLe(bytes, 48, 4));
  const uint64_t shoff = readLe(bytes, 40, 8);
  const uint16_t shentsize = static_cast<uint16_t>(readLe(bytes, 58, 2));
  uint64_t shnum = readLe(bytes, 60, 2);
  uint64_t shstrndx = readLe(bytes, 62, 2);
  if (shoff == 0) return f;  // no section header table: no sections
  if (shentsize != kSectionHeaderSize)
    return fail(error, "section header size " + std::to_string(shentsize) + ", not 64", 58);
  if (!inside(shoff, kSectionHeaderSize, bytes.size()))
    return fail(
        error,
        "section header table at " + hex(shoff) + " is outside the file (" + std::to_string(bytes.size()) + " bytes)",
        40);
  // Extended numbering: section 0 holds the count and the name table's index.
  if (shnum == 0) shnum = readLe(bytes, shoff + 32, 8);
  if (shstrndx == kXIndex) shstrndx = readLe(bytes, shoff + 40, 4);
  if (shnum > (bytes.size() - shoff) / kSectionHeaderSize)
    return fail(error,
                "section header table of " + std::to_string(shnum) + " entries at " + hex(shoff) +
                    " runs past the end of the file (" + std::to_string(bytes.size()) + " bytes)",
                shoff);
  f.sections_.reserve(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint64_t at = shoff + i * kSectionHeaderSize;
    Section s = readSectionHeader(bytes, at, static_cast<uint32_t>(i));
    s.inFile = holdsFileBytes(s.type, f.header_.machine);
    if (s.inFile && !inside(s.offset, s.size, bytes.size()))
      return fail(error,
                  "section " + std::to_string(i) + "'s bytes (" + hex(s.offset) + "+" + hex(s.size) +
                      ") run past the end of the file (" + std::to_string(bytes.size()) + " bytes)",
                  at + 24);
    f.sections_.push_back(s);
  }
  if (std::optional<Error> e = overlap(f.sections_)) return fail(error, e->message, e->offset);
  if (shstrndx == 0) return f;  // SHN_UNDEF: no names
  if (shstrndx >= shnum)
    return fail(error,
                "section name table index " + std::to_string(shstrndx) + " is not a section (there are " +
                    std::to_string(shnum) + ")",
                62);
  const std::span<const uint8_t> names = f.contents(f.sections_[shstrndx]);
  for (Section& s : f.sections_) {
    const uint64_t at = shoff + uint64_t{s.index} * kSectionHeaderSize;
    const uint32_t nameOffset = static_cast<uint32_t>(readLe(bytes, at, 4));
    if (s.index == 0 && nameOffset == 0) continue;
    std::optional<std::string_view> name = stringAt(names, nameOffset);
    if (!name)
      return fail(error,
                  "section " + std::to_string(s.index) + "'s name at " + hex(nameOffset) +
                      (nameOffset >= names.size() ? " is outside the section name table"
                                                  : " has no terminating NUL in the section name table"),
                  at);
    s.name = *name;
  }
  return f;
}

const Section* File::find(std::string_view name) const {
  for (const Section& s : sections_)
    if (s.name == name && s.index != 0) return &s;
  return nullptr;
}

std::span<const uint8_t> File::contents(const Section& s) const {
  if (!s.inFile) return {};
  return bytes_.subspan(s.offset, s.size);  // checked by parse
}

std::optional<std::vector<Symbol>> File::symbols(const Section& symtab, Error& error) const {
  if (symtab.link >= sections_.size())
    return fail(error,
                "symbol table " + std::to_string(symtab.index) + " links to string table " +
                    std::to_string(symtab.link) + ", which is not a section",
                symtab.offset);
  const std::span<const uint8_t> strings = contents(sections_[symtab.link]);
  const std::span<const uint8_t> table = contents(symtab);
  if (table.size() % kSymbolSize != 0)
    return fail(error,
                "symbol table " + std::to_string(symtab.index) + "'s size " + std::to_string(table.size()) +
                    " is not a multiple of 24",
                symtab.offset);
  std::vector<Symbol> out;
  out.reserve(table.size() / kSymbolSize);
  for (uint64_t at = 0; at < table.size(); at += kSymbolSize) {
    work::step(work::elfScan);
    Symbol s;
    const uint32_t nameOffset = static_cast<uint32_t>(readLe(table, at, 4));
    s.info = table[at + 4];
    s.other = table[at + 5];
    s.sectionIndex = static_cast<uint16_t>(readLe(table, at + 6, 2));
    s.value = readLe(table, at + 8, 8);
    s.size = readLe(table, at + 16, 8);
    if (nameOffset != 0) {
      std::optional<std::string_view> name = stringAt(strings, nameOffset);
      if (!name)
        return fail(error,
                    "symbol " + std::to_string(at / kSymbolSize) + "'s name at " + hex(nameOffset) +
                        " is not a NUL-terminated string of its string table",
                    symtab.offset + at);
      s.name = *name;
    }
    out.push_back(s);
  }
  return out;
}

const std::vector<std::vector<uint32_t>>& File::relocationSectionsByTarget() {
  if (relocationSections_) return *relocationSections_;
  std::vector<std::vector<uint32_t>>& byTarget = relocationSections_.emplace(sections_.size());
  for (const Section& rel : sections_) {
    work::step(work::elfScan);
    if ((rel.type == SHT_REL || rel.type == SHT_RELA) && rel.index != 0 && rel.info < sections_.size())
      byTarget[rel.info].push_back(rel.index);
  }
  return byTarget;
}

const std::vector<Symbol>* File::cachedSymbols(uint32_t index, Error& error) {
  if (auto found = symbols_.find(index); found != symbols_.end()) return &found->second;
  std::optional<std::vector<Symbol>> decoded = symbols(sections_[index], error);
  if (!decoded) return nullptr;
  return &symbols_.emplace(index, std::move(*decoded)).first->second;
}

std::optional<std::vector<Relocation>> File::relocations(const Section& rel, Error& error) const {
  const bool rela = rel.type == SHT_RELA;
  if (!rela && rel.type != SHT_REL)
    return fail(error, "section " + std::to_string(rel.index) + " is not a relocation section", rel.offset);
  const uint64_t entry = rela ? kRelaSize : kRelSize;
  const std::span<const uint8_t> table = contents(rel);
  if (table.size() % entry != 0)
    return fail(error,
                "relocation section " + std::string(rel.name) + "'s size " + std::to_string(table.size()) +
                    " is not a multiple of " + std::to_string(entry),
                rel.offset);
  std::vector<Relocation> out;
  out.reserve(table.size() / entry);
  for (uint64_t at = 0; at < table.size(); at += entry) {
    Relocation r;
    r.offset = readLe(table, at, 8);
    const uint64_t info = readLe(table, at + 8, 8);
    r.type = static_cast<uint32_t>(info);
    r.symbol = static_cast<uint32_t>(info >> 32);
    work::step(work::elfScan);
    if (rela) {
      r.addend = static_cast<int64_t>(readLe(table, at + 16, 8));
      r.explicitAddend = true;
    }
    out.push_back(r);
  }
  return out;
}

std::optional<std::vector<uint8_t>> File::relocatedContents(const Section& target, Error& error,
                                                            RelocationReport* report,
                                                            std::span<const uint64_t> sectionAddresses) {
  const std::span<const uint8_t> original = contents(target);
  std::vector<uint8_t> bytes(original.begin(), original.end());
  const std::vector<std::vector<uint32_t>>& byTarget = relocationSectionsByTarget();
  if (target.index >= byTarget.size()) return bytes;
  for (uint32_t relIndex : byTarget[target.index]) {
    const Section& rel = sections_[relIndex];
    std::optional<std::vector<Relocation>> relocs = relocations(rel, error);
    if (!relocs) return std::nullopt;
    if (rel.link >= sections_.size() || sections_[rel.link].type != SHT_SYMTAB)
      return fail(error,
                  "relocation section " + std::string(rel.name) + " links to section " + std::to_string(rel.link) +
                      ", which is not a symbol table",
                  rel.offset);
    const std::vector<Symbol>* symbolCache = cachedSymbols(rel.link, error);
    if (!symbolCache) return std::nullopt;
    for (size_t i = 0; i < relocs->size(); ++i) {
      const Relocation& r = (*relocs)[i];
      const uint64_t entryAt = rel.offset + i * (rel.type == SHT_RELA ? kRelaSize : kRelSize);
      const unsigned size = r.type == R_CUDA_64 ? 8 : r.type == R_CUDA_32 ? 4 : 0;
      if (size == 0) {
        if (report && std::find(report->unappliedTypes.begin(), report->unappliedTypes.end(), r.type) ==
                          report->unappliedTypes.end())
          report->unappliedTypes.push_back(r.type);
        continue;
      }
      if (!inside(r.offset, size, bytes.size()))
        return fail(error,
                    "relocation " + std::to_string(i) + " of " + std::string(rel.name) + " writes " +
                        std::to_string(size) + " bytes at " + hex(r.offset) + ", outside " + std::string(target.name) +
                        " (" + std::to_string(bytes.size()) + " bytes)",
                    entryAt);
      if (r.symbol >= symbolCache->size())
        return fail(error,
                    "relocation " + std::to_string(i) + " of " + std::string(rel.name) + " names symbol " +
                        std::to_string(r.symbol) + "; the symbol table has " + std::to_string(symbolCache->size()),
                    entryAt);
      const uint64_t addend = r.explicitAddend ? static_cast<uint64_t>(r.addend) : readLe(bytes, r.offset, size);
      const Symbol& symbol = (*symbolCache)[r.symbol];
      const uint64_t placed = symbol.sectionIndex < sectionAddresses.size() ? sectionAddresses[symbol.sectionIndex] : 0;
      const uint64_t value = placed + symbol.value + addend;
      for (unsigned b = 0; b < size; ++b) bytes[r.offset + b] = static_cast<uint8_t>(value >> (8 * b));
      if (report) ++report->applied;
    }
  }
  return bytes;
}

std::string describe(const Error& error) {
  return error.message + " (at file offset " + hex(error.offset) + ")";
}

}  // namespace ptxdwarf::elf
