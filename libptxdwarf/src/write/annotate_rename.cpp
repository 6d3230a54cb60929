// annotate --rename-registers: a function's long register names become
// short ones that fit a DWARF register location (8 bytes).
#include "annotate_internal.h"

namespace ptxdwarf::write::annotating {

bool Annotator::identifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c == '%';
}

void Annotator::chooseStem() {
  stem_ = "%_";
  auto taken = [&](const ptx::RegisterDecl& r) { return r.name.starts_with(stem_); };
  while (std::any_of(m_.registers.begin(), m_.registers.end(), taken)) stem_ += '_';
}

std::string Annotator::tag(size_t k) const {
  std::string letters;
  do {
    letters.insert(letters.begin(), static_cast<char>('a' + k % 26));
    k /= 26;
  } while (k);
  return stem_ + letters;
}

Annotator::Renames Annotator::planRenames(const ptx::Function& f) {
  Renames renames;
  size_t next = 0;
  for (const ptx::RegisterDecl& r : m_.registersOf(f)) {
    if (renames.count(r.name)) continue;  // the same name declared in another block
    size_t digits = r.isRange() ? std::to_string(r.count - 1).size() : 0;
    if (packable(r.name.str() + std::string(digits, '0'))) continue;
    std::string to = tag(next++);
    if (to.size() + digits > 8) {
      warn(r.loc, "registers " + r.name.str() + "<" + std::to_string(r.count) + "> are too many to rename to 8 bytes");
      continue;
    }
    renames.emplace(r.name, Rename{to, r.count});
    ++result_.stats.renamedRegisters;
  }
  return renames;
}

std::string Annotator::renamed(std::string_view name, const Renames& renames) {
  if (renames.empty()) return std::string(name);
  work::step(work::annotateRename);
  auto exact = renames.find(name);
  if (exact != renames.end()) return exact->second.to;
  // A register of a renamed range: a prefix, then digits. Only the splits
  // inside the trailing digits can be one, shortest prefix first (as the
  // map orders prefixes of one another), so a token costs a few lookups
  // whatever the number of renames.
  size_t digitsBegin = name.size();
  while (digitsBegin > 0 && name[digitsBegin - 1] >= '0' && name[digitsBegin - 1] <= '9') --digitsBegin;
  for (size_t split = std::max<size_t>(digitsBegin, 1); split < name.size(); ++split) {
    work::step(work::annotateRename);
    auto it = renames.find(name.substr(0, split));
    if (it == renames.end() || it->second.count == 0) continue;
    std::string_view digits = name.substr(split);
    if ((digits.size() > 1 && digits[0] == '0') || digits.size() > 10) continue;
    if (std::stoull(std::string(digits)) < it->second.count) return it->second.to + std::string(digits);
  }
  return std::string(name);
}

void Annotator::renameRegisters(const ptx::Function& f, const Renames& renames) {
  if (renames.empty()) return;
  uint64_t begin = lineIndex_.offset(f.bodyBegin.line, f.bodyBegin.col);
  uint64_t end = std::min<uint64_t>(lineStart(f.bodyEnd.line) + f.bodyEnd.col, text_.size());
  for (uint64_t i = begin; i < end;) {
    char c = text_[i];
    if (c == '/' && i + 1 < end && (text_[i + 1] == '/' || text_[i + 1] == '*')) {  // comments stay as written
      size_t stop = text_[i + 1] == '/' ? text_.find('\n', i) : text_.find("*/", i + 2);
      i = stop == std::string_view::npos ? end : stop + 1;
      continue;
    }
    if (!identifierChar(c) || (i > 0 && identifierChar(text_[i - 1]))) {
      ++i;
      continue;
    }
    uint64_t j = i;
    while (j < end && identifierChar(text_[j])) ++j;
    std::string_view token = text_.substr(i, j - i);
    std::string to = renamed(token, renames);
    if (to != token) edits_.replace(i, static_cast<uint32_t>(j - i), to);
    i = j;
  }
}

}  // namespace ptxdwarf::write::annotating
