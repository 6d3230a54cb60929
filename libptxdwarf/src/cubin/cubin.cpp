#include "ptxdwarf/cubin/cubin.h"

#include <algorithm>
#include <unordered_map>

#include "ptxdwarf/cubin/line_program.h"
#include "../work.h"

namespace ptxdwarf::cubin {

namespace {

// The sections a reader of the model or of this folder looks at: the DWARF
// and NVIDIA's debug sections.
bool isDebugSection(std::string_view name) { return name.starts_with(".debug_") || name.starts_with(".nv_debug_"); }

// The module's files, as `.file` would have given them: .debug_line's file
// table, each path joined with its directory (what llvm-dwarfdump prints for
// DW_AT_decl_file).
void addFiles(ptx::Module& m) {
  const SectionImage* line = m.section(".debug_line");
  if (!line) return;
  std::vector<LineTable> tables = decodeLinePrograms(line->bytes);
  if (tables.empty()) return;
  const LineHeader& h = tables.front().header;
  for (size_t i = 0; i < h.files.size(); ++i) {
    ptx::FileEntry f;
    f.index = static_cast<unsigned>(i + 1);
    f.path = h.filePath(i + 1);
    f.timestamp = h.files[i].modTime;
    f.size = h.files[i].length;
    m.files.push_back(std::move(f));
  }
}

// Where ReadOptions::placeCode loads each section: the `.text.` sections
// one after the other from kPlacedCodeBase, each at its alignment; every
// other section at 0 (the file's addresses).
constexpr uint64_t kPlacedCodeBase = 0x10000;
std::vector<uint64_t> placedAddresses(const elf::File& file) {
  std::vector<uint64_t> addresses(file.sections().size(), 0);
  uint64_t next = kPlacedCodeBase;
  for (const elf::Section& s : file.sections()) {
    if (!s.name.starts_with(".text.")) continue;
    const uint64_t align = s.addressAlign > 1 && s.addressAlign <= (uint64_t{1} << 20) ? s.addressAlign : 1;
    next = (next + align - 1) / align * align;
    addresses[s.index] = next;
    next += std::max<uint64_t>(s.size, 1);  // an empty function still gets an address of its own
  }
  return addresses;
}

// Hands `release` every stretch of the file outside what reading the debug
// sections looks at after the headers: the debug sections, the relocation
// sections, the symbol tables and the string tables (the sections' and
// the symbols' names are views into them).
void releaseTheRest(const elf::File& file, uint64_t fileSize, const std::function<void(uint64_t, uint64_t)>& release) {
  std::vector<std::pair<uint64_t, uint64_t>> kept;
  for (const elf::Section& s : file.sections()) {
    const bool readAgain = isDebugSection(s.name) || s.type == elf::SHT_REL || s.type == elf::SHT_RELA ||
                           s.type == elf::SHT_SYMTAB || s.type == elf::SHT_STRTAB;
    if (readAgain && s.inFile && s.size) kept.emplace_back(s.offset, s.offset + s.size);
  }
  std::sort(kept.begin(), kept.end());
  uint64_t at = 0;
  for (const auto& [begin, end] : kept) {
    if (begin > at) release(at, begin);
    at = std::max(at, end);
  }
  if (at < fileSize) release(at, fileSize);
}

}  // namespace

const CodeSection* Cubin::codeOf(std::string_view function) const {
  for (const CodeSection& c : code)
    if (c.name == function) return &c;
  return nullptr;
}

ReadResult read(std::span<const uint8_t> bytes, std::string_view filename, const ReadOptions& options) {
  ReadResult r;
  r.module.filename = std::string(filename);
  r.module.fileFormat = "elf64-unknown";
  elf::Error error;
  std::optional<elf::File> file = elf::File::parse(bytes, error);
  if (!file) {
    r.diagnostics.error({}, "not a readable cubin: " + elf::describe(error));
    return r;
  }
  r.cubin.header = file->header();
  if (options.release) releaseTheRest(*file, bytes.size(), options.release);
  const std::vector<uint64_t> placed = options.placeCode ? placedAddresses(*file) : std::vector<uint64_t>{};
  std::unordered_map<std::string_view, size_t> imageOf;  // by section name: its index in the module's sections
  for (const elf::Section& s : file->sections()) {
    if (s.name.starts_with(".text."))
      r.cubin.code.push_back({std::string(s.name.substr(6)), s.size, placed.empty() ? 0 : placed[s.index]});
    if (!isDebugSection(s.name)) continue;
    elf::RelocationReport report;
    std::optional<std::vector<uint8_t>> contents;
    if (options.applyRelocations)
      contents = file->relocatedContents(s, error, &report, placed);
    else
      contents.emplace(file->contents(s).begin(), file->contents(s).end());
    if (!contents) {
      r.diagnostics.error({}, "cannot relocate " + std::string(s.name) + ": " + elf::describe(error));
      return r;
    }
    for (uint32_t type : report.unappliedTypes)
      r.cubin.notes.push_back(std::string(s.name) + ": relocation type " + std::to_string(type) + " not applied");
    // ptxas may write a section twice (an empty `.debug_info` block before
    // the real one): one image of the name, the bytes in header order.
    work::step(work::elfScan);
    const auto [named, first] = imageOf.try_emplace(s.name, r.module.sections.size());
    if (first) r.module.sections.emplace_back().name = std::string(s.name);
    std::vector<uint8_t>& image = r.module.sections[named->second].bytes;
    if (image.empty())
      image = std::move(*contents);
    else
      image.insert(image.end(), contents->begin(), contents->end());
    if (options.release) options.release(s.offset, s.offset + s.size);
  }
  if (options.release) options.release(0, bytes.size());
  addFiles(r.module);
  r.module.indexFiles();
  return r;
}

const SectionImage* sectionOrSuffixed(const ptx::Module& m, std::string_view name) {
  for (const SectionImage& s : m.sections)
    if (s.name == name || (s.name.size() > name.size() + 1 && std::string_view(s.name).starts_with(name) &&
                           s.name[name.size()] == '.'))
      return &s;
  return nullptr;
}

std::optional<std::string> embeddedPtx(const ptx::Module& m) {
  const SectionImage* s = sectionOrSuffixed(m, ".nv_debug_ptx_txt");
  if (!s) return std::nullopt;
  std::string text(reinterpret_cast<const char*>(s->bytes.data()), s->bytes.size());
  for (char& c : text)
    if (c == '\0') c = '\n';
  return text;
}

}  // namespace ptxdwarf::cubin
