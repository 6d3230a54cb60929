#include "ptxdwarf/ptx/lines.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace ptxdwarf::ptx {

namespace {

struct PositionHash {
  size_t operator()(const SourcePosition& p) const {
    uint64_t h = (uint64_t{p.file} << 40) ^ (uint64_t{p.line} << 12) ^ p.col;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return static_cast<size_t>(h);
  }
};

void addFiles(const Module& m, LineTable& t) {
  std::vector<uint32_t> order(m.files.size());
  std::iota(order.begin(), order.end(), uint32_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return m.files[a].index < m.files[b].index; });
  std::unordered_map<std::string_view, uint32_t> directories;
  for (uint32_t i : order) {
    const FileEntry& f = m.files[i];
    if (!t.files.empty() && t.files.back().index == f.index) continue;  // a repeated index: the first counts
    LineFile lf;
    lf.index = f.index;
    lf.entry = i;
    lf.modificationTime = f.timestamp.value_or(0);
    lf.length = f.size.value_or(0);
    size_t slash = f.path.rfind('/');
    if (slash == std::string::npos) {
      lf.name = f.path;
    } else {
      std::string_view dir = std::string_view(f.path).substr(0, slash);
      auto [it, added] = directories.try_emplace(dir, static_cast<uint32_t>(t.includeDirectories.size() + 1));
      if (added) t.includeDirectories.emplace_back(dir);
      lf.directory = it->second;
      lf.name = f.path.substr(slash + 1);
    }
    t.files.push_back(std::move(lf));
  }
}

// Resolves each inlined row's caller. Only the locations some `inlined_at`
// names are tracked, so the map stays as small as the set of call sites.
void resolveCallers(const Module& m, LineTable& t) {
  std::unordered_map<SourcePosition, uint32_t, PositionHash> lastUse;
  for (const LocInlining& inlining : m.locInlinings) lastUse.emplace(inlining.inlinedAt, kNoIndex);
  if (lastUse.empty()) return;
  for (uint32_t i = 0; i < m.locs.size(); ++i) {
    const LocRecord& r = m.locs[i];
    if (r.isInlined()) {
      if (auto it = lastUse.find(m.inliningOf(r).inlinedAt); it != lastUse.end()) t.rows[i].caller = it->second;
      const uint32_t caller = t.rows[i].caller;  // an earlier row: its depth is known
      t.rows[i].inlineDepth = 1 + (caller != kNoIndex ? t.rows[caller].inlineDepth : 0);
    }
    if (auto it = lastUse.find(r.position()); it != lastUse.end()) it->second = i;
  }
}

}  // namespace

const LineFile* LineTable::file(unsigned index) const {
  auto it = std::lower_bound(files.begin(), files.end(), index,
                             [](const LineFile& f, unsigned i) { return f.index < i; });
  return it != files.end() && it->index == index ? &*it : nullptr;
}

std::vector<uint32_t> LineTable::inlineStack(uint32_t row, size_t most) const {
  std::vector<uint32_t> stack;
  // A caller always comes earlier, so the chain ends; the bound is belt and braces.
  most = std::min(most, rows.size());
  for (uint32_t r = row; r != kNoIndex && stack.size() < most; r = rows[r].caller) stack.push_back(r);
  return stack;
}

namespace {

// The NUL-terminated string starting at `offset` of `.debug_str`, if one does.
std::optional<std::string> stringStartingAt(const SectionImage& str, uint64_t offset) {
  if (offset >= str.bytes.size() || (offset > 0 && str.bytes[offset - 1] != 0)) return std::nullopt;
  auto begin = str.bytes.begin() + static_cast<ptrdiff_t>(offset);
  auto nul = std::find(begin, str.bytes.end(), uint8_t{0});
  if (nul == str.bytes.end()) return std::nullopt;
  return std::string(begin, nul);
}

void resolveFunctionNames(const Module& m, LineTable& t) {
  t.functionNames.resize(m.locFunctionNames.size());
  const SectionImage* str = m.section(".debug_str");
  if (!str || m.locFunctionNames.empty()) return;
  std::unordered_map<std::string_view, uint64_t> offsets;  // the first definition of each label
  for (const SectionLabel& l : str->labels) offsets.emplace(l.name, l.offset);
  for (size_t i = 0; i < m.locFunctionNames.size(); ++i)
    if (auto it = offsets.find(m.locFunctionNames[i]); it != offsets.end())
      t.functionNames[i] = stringStartingAt(*str, it->second);
}

}  // namespace

std::optional<std::string> debugStringAt(const Module& module, std::string_view label) {
  const SectionImage* str = module.section(".debug_str");
  if (!str) return std::nullopt;
  for (const SectionLabel& l : str->labels)
    if (l.name == label) return stringStartingAt(*str, l.offset);
  return std::nullopt;
}

std::string pathOf(const LineTable& table, const LineFile& file) {
  if (file.directory == 0 || file.directory > table.includeDirectories.size()) return file.name;
  return table.includeDirectories[file.directory - 1] + "/" + file.name;
}

LineTable buildLineTable(const Module& module) {
  LineTable t;
  addFiles(module, t);
  t.rows.resize(module.locs.size());
  for (uint32_t i = 0; i < t.rows.size(); ++i) t.rows[i].loc = i;
  resolveCallers(module, t);
  resolveFunctionNames(module, t);
  return t;
}

}  // namespace ptxdwarf::ptx
