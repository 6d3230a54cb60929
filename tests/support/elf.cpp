#include "elf.h"

#include <cstring>

#include "tools.h"

namespace ptxdwarf::testsupport {
namespace {

constexpr uint32_t kShtNobits = 8;
constexpr uint16_t kShnXindex = 0xffff;
constexpr uint64_t kSectionHeaderSize = 64;

uint64_t le(std::span<const uint8_t> b, size_t off, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t(b[off + i]) << (8 * i);
  return v;
}

std::nullopt_t fail(std::string* error, std::string msg) {
  if (error) *error = std::move(msg);
  return std::nullopt;
}

// [off, off+size) lies inside a buffer of `total` bytes, without overflow.
bool inside(uint64_t off, uint64_t size, uint64_t total) { return off <= total && size <= total - off; }

struct SectionHeader {
  uint32_t name;
  uint32_t type;
  uint64_t offset;
  uint64_t size;
  uint32_t link;
};

}  // namespace

std::optional<std::vector<ElfSection>> parseElfSectionList(std::span<const uint8_t> f, std::string* error) {
  if (f.size() < 64) return fail(error, "file too small for an ELF64 header");
  if (std::memcmp(f.data(), "\x7f" "ELF", 4) != 0) return fail(error, "not an ELF file");
  if (f[4] != 2) return fail(error, "not ELF64 (EI_CLASS != ELFCLASS64)");
  if (f[5] != 1) return fail(error, "not little-endian (EI_DATA != ELFDATA2LSB)");

  const uint64_t shoff = le(f, 0x28, 8);
  const uint64_t shentsize = le(f, 0x3a, 2);
  uint64_t shnum = le(f, 0x3c, 2);
  uint64_t shstrndx = le(f, 0x3e, 2);
  if (shoff == 0) return std::vector<ElfSection>{};  // no section table
  if (shentsize < kSectionHeaderSize) return fail(error, "e_shentsize smaller than 64");
  if (!inside(shoff, shentsize, f.size())) return fail(error, "section header table out of bounds");

  auto header = [&](uint64_t i) {
    const size_t at = size_t(shoff + i * shentsize);
    return SectionHeader{uint32_t(le(f, at + 0, 4)), uint32_t(le(f, at + 4, 4)), le(f, at + 0x18, 8),
                         le(f, at + 0x20, 8), uint32_t(le(f, at + 0x28, 4))};
  };
  const SectionHeader first = header(0);
  if (shnum == 0) shnum = first.size;            // extended section numbering
  if (shstrndx == kShnXindex) shstrndx = first.link;
  if (shnum > (f.size() - shoff) / shentsize)
    return fail(error, "section header table out of bounds");
  if (shstrndx >= shnum) return fail(error, "e_shstrndx out of range");

  const SectionHeader strtab = header(shstrndx);
  if (strtab.type == kShtNobits || !inside(strtab.offset, strtab.size, f.size()))
    return fail(error, "section name table out of bounds");
  const auto names = f.subspan(size_t(strtab.offset), size_t(strtab.size));

  std::vector<ElfSection> out;
  out.reserve(size_t(shnum));
  for (uint64_t i = 1; i < shnum; ++i) {
    const SectionHeader h = header(i);
    if (h.name >= names.size())
      return fail(error, "section " + std::to_string(i) + ": name offset out of bounds");
    const auto* begin = reinterpret_cast<const char*>(names.data()) + h.name;
    const void* nul = std::memchr(begin, 0, names.size() - h.name);
    if (!nul) return fail(error, "section " + std::to_string(i) + ": unterminated name");
    std::string name(begin, static_cast<const char*>(nul));
    std::vector<uint8_t> bytes;
    if (h.type != kShtNobits) {
      if (!inside(h.offset, h.size, f.size()))
        return fail(error, "section " + name + ": contents out of bounds");
      bytes.assign(f.begin() + ptrdiff_t(h.offset), f.begin() + ptrdiff_t(h.offset + h.size));
    }
    out.push_back(ElfSection{std::move(name), h.type, std::move(bytes)});
  }
  return out;
}

std::optional<std::map<std::string, std::vector<uint8_t>>> parseElfSections(std::span<const uint8_t> f,
                                                                            std::string* error) {
  auto list = parseElfSectionList(f, error);
  if (!list) return std::nullopt;
  std::map<std::string, std::vector<uint8_t>> out;
  for (auto& s : *list) {
    auto& bytes = out[s.name];
    bytes.insert(bytes.end(), s.bytes.begin(), s.bytes.end());
  }
  return out;
}

namespace {
template <typename Result, typename Parse>
std::optional<Result> readAndParse(const std::string& path, std::string* error, Parse parse) {
  std::string readError;
  auto data = readFile(path, &readError);
  if (!data) {
    if (error) *error = readError;
    return std::nullopt;
  }
  std::string parseError;
  auto r = parse(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data->data()), data->size()),
                 &parseError);
  if (!r && error) *error = path + ": " + parseError;
  return r;
}
}  // namespace

std::optional<std::map<std::string, std::vector<uint8_t>>> readElfSections(const std::string& path,
                                                                           std::string* error) {
  return readAndParse<std::map<std::string, std::vector<uint8_t>>>(
      path, error, [](auto bytes, std::string* e) { return parseElfSections(bytes, e); });
}

std::optional<std::vector<ElfSection>> readElfSectionList(const std::string& path, std::string* error) {
  return readAndParse<std::vector<ElfSection>>(path, error,
                                               [](auto bytes, std::string* e) { return parseElfSectionList(bytes, e); });
}

}  // namespace ptxdwarf::testsupport
