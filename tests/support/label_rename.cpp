#include "label_rename.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "ptxdwarf/ptx/module.h"

namespace ptxdwarf::testsupport {

namespace {

bool startsName(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%' || c == '.';
}
bool continuesName(char c) { return startsName(c) || (c >= '0' && c <= '9'); }

}  // namespace

std::string renameEveryLabel(std::string_view text) {
  const ptx::ReadResult read = ptx::read(text, "rename.ptx");
  std::vector<std::string> labels;
  for (const ptx::Label& l : read.module.labels) labels.push_back(l.name.str());
  for (const SectionImage& s : read.module.sections)
    for (const SectionLabel& l : s.labels) labels.push_back(std::string(l.name));
  std::unordered_map<std::string_view, std::string> renamed;
  for (size_t i = 0; i < labels.size(); ++i)
    renamed.try_emplace(labels[i], "$L__renamed" + std::to_string(labels.size() - 1 - i));
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (!startsName(text[i]) || (i > 0 && continuesName(text[i - 1]))) {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && continuesName(text[end])) ++end;
    const std::string_view name = text.substr(i, end - i);
    auto it = renamed.find(name);
    out += it == renamed.end() ? name : std::string_view(it->second);
    i = end;
  }
  return out;
}

}  // namespace ptxdwarf::testsupport
