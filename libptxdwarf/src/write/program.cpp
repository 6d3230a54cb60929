#include "ptxdwarf/write/program.h"

#include <algorithm>
#include <string>
#include <vector>

#include "ptxdwarf/dwarf.h"

namespace ptxdwarf::write {

namespace {

void assemblyError(Diagnostics& diags, std::string message) { diags.error({}, std::move(message)).rule = "assemble"; }

// The header directives assemble() writes itself; a second copy in the code
// would make ptxas fail (a second `.version`) or the `.file` table disagree
// with the DWARF.
void checkCode(std::string_view code, Diagnostics& diags) {
  static constexpr std::string_view kOwned[] = {".version", ".target", ".address_size", ".file"};
  uint32_t line = 1;
  for (size_t pos = 0; pos < code.size(); ++line) {
    size_t end = code.find('\n', pos);
    if (end == std::string_view::npos) end = code.size();
    std::string_view text = code.substr(pos, end - pos);
    size_t first = text.find_first_not_of(" \t\r");
    if (first != std::string_view::npos) {
      text.remove_prefix(first);
      for (std::string_view d : kOwned)
        if (text.starts_with(d) && (text.size() == d.size() || text[d.size()] == ' ' || text[d.size()] == '\t'))
          assemblyError(diags, "line " + std::to_string(line) + " of the code writes `" + std::string(d) +
                                   "`, which assemble() writes from the program's options and file table");
    }
    pos = end + 1;
  }
}

// Every file a DIE names must be in the `.file` table ptxas builds the line
// table from: that is where a debugger looks DW_AT_decl_file up.
void checkFileIds(const Unit& unit, size_t unitIndex, const FileTable& files, Diagnostics& diags) {
  auto check = [&](DieId id, uint16_t name, uint64_t file) {
    if ((name != dw::DW_AT_decl_file && name != dw::DW_AT_call_file) || file == 0 || file <= files.size()) return;
    assemblyError(diags, std::string(dw::attributeName(name)) + " " + std::to_string(file) + " of DIE " +
                             std::to_string(id) + " (unit " + std::to_string(unitIndex) +
                             ") is not in the file table (it has " + std::to_string(files.size()) + " files)");
  };
  for (DieId id = 0; id < unit.size(); ++id) {
    for (const AttributeView a : unit.attributes(id))
      if (a.kind() == Value::Kind::unsigned_) check(id, a.name(), a.u());
    // Encoded DIEs (Builder::registerVariable) hold theirs as data forms: little-endian bytes.
    for (const Unit::EncodedValue& v : unit.encodedValues(id)) {
      if (v.form != dw::DW_FORM_data1 && v.form != dw::DW_FORM_data2 && v.form != dw::DW_FORM_data4 &&
          v.form != dw::DW_FORM_data8)
        continue;
      uint64_t file = 0;
      for (size_t i = v.bytes.size(); i > 0; --i) file = file << 8 | v.bytes[i - 1];
      check(id, v.name, file);
    }
  }
}

// Adds the function_name strings to the sections: a `.debug_str` of their
// own, or after the strings of one the units already have.
void addStrings(std::vector<SectionImage>& images, const SectionImage& strings) {
  if (strings.bytes.empty()) return;
  auto it = std::find_if(images.begin(), images.end(), [](const SectionImage& s) { return s.name == ".debug_str"; });
  if (it == images.end()) {
    images.push_back(strings);
    return;
  }
  uint64_t base = it->bytes.size();
  it->bytes.insert(it->bytes.end(), strings.bytes.begin(), strings.bytes.end());
  for (SectionLabel label : strings.labels) {
    label.offset += base;
    it->labels.push_back(std::move(label));
  }
}

}  // namespace

Program::Program(ProgramOptions options)
    : options_(std::move(options)),
      labels_(options_.labelPrefix),
      lines_(files_, labels_, {.version = options_.version, .flattenInlined = options_.flattenInlined}) {
  if (options_.addressSize != 32 && options_.addressSize != 64)
    throw BuildError(".address_size must be 32 or 64, not " + std::to_string(options_.addressSize));
  if (!options_.version.present) throw BuildError("the program needs a PTX .version");
}

Labels::Function Program::beginFunction() {
  function_ = labels_.function();
  inFunction_ = true;
  lines_.beginFunction();
  place(function_.begin);
  return function_;
}

const std::string& Program::endFunction() {
  if (!inFunction_) throw BuildError("endFunction() without beginFunction()");
  inFunction_ = false;
  place(function_.end);
  return function_.end;
}

std::string Program::label() {
  std::string name = labels_.temporary();
  place(name);
  return name;
}

void Program::place(std::string_view name) {
  code_ += name;
  code_ += ":\n";
}

size_t Program::loc(SourcePos pos, std::span<const InlinedCall> inlined) { return lines_.loc(code_, pos, inlined); }

Assembled Program::assemble(const Unit* unit, const AssembleOptions& options) const {
  if (!unit) return assemble(std::span<const Unit* const>{}, options);
  return assemble(std::span<const Unit* const>(&unit, 1), options);
}

Assembled Program::assemble(std::span<const Unit* const> units, const AssembleOptions& options) const {
  Assembled result;
  Diagnostics& diags = result.diagnostics;
  checkCode(code_, diags);
  for (size_t k = 0; k < units.size(); ++k) {
    if (!units[k]) {
      assemblyError(diags, "unit " + std::to_string(k) + " is null");
      continue;
    }
    checkFileIds(*units[k], k, files_, diags);
  }
  if (diags.hasErrors()) return result;

  std::vector<SectionImage> sections;
  if (!units.empty()) sections = encode(units, options.encode, diags);
  if (diags.hasErrors()) return result;
  addStrings(sections, lines_.strings());

  std::string text;
  text += ".version " + std::to_string(options_.version.major) + "." + std::to_string(options_.version.minor) + "\n";
  text += ".target " + options_.target + "\n";
  text += ".address_size " + std::to_string(options_.addressSize) + "\n\n";
  files_.write(text);
  if (files_.size()) text += '\n';
  text += code_;
  if (!text.ends_with('\n')) text += '\n';
  if (!sections.empty()) {
    text += '\n';
    if (!writeSections(text, sections, {.style = options.style, .version = options_.version}, diags)) return result;
    if (!text.ends_with('\n')) text += '\n';
  }

  result.ptx = std::move(text);
  return result;
}

}  // namespace ptxdwarf::write
