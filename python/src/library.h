// Every call the Python binding makes into the C++ library's reading side,
// in one place: loading a text, the value text the dump prints, the checker,
// the line table. When the library's own load() and print layer land, these
// bodies change and nothing else in the binding does.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/check/check.h"
#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/print/dump.h"
#include "ptxdwarf/ptx/lines.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/attributes.h"
#include "ptxdwarf/view/lookup.h"
#include "ptxdwarf/view/types.h"

namespace ptxdwarf_python {

struct AttributeRenderer;  // the dump's value renderer, made on first use

// A PTX text read and its DWARF decoded: what every Python object of a module
// keeps alive (the model's string views point into `text`).
struct Loaded {
  std::string name;
  std::string text;
  ptxdwarf::ptx::ReadResult read;
  ptxdwarf::read::Dwarf dwarf;

  const ptxdwarf::ptx::Module& module() const { return read.module; }
  // Made on first use, once (line_table() and check() release the GIL).
  const ptxdwarf::ptx::LineTable& lineTable();
  // Made on first use; called with the GIL held.
  AttributeRenderer& renderer();
  // Where each DIE's subtree ends: children in as many steps as there are.
  const ptxdwarf::view::SubtreeEnds& subtreeEnds();
  // Builds the module's name index (Module::reindex) once.
  void indexNames();

  Loaded() = default;
  Loaded(const Loaded&) = delete;
  Loaded& operator=(const Loaded&) = delete;
  ~Loaded();

 private:
  std::optional<ptxdwarf::ptx::LineTable> lineTable_;
  std::unique_ptr<AttributeRenderer> renderer_;
  std::optional<ptxdwarf::view::SubtreeEnds> subtreeEnds_;
  std::once_flag indexOnce_, lineTableOnce_;  // made on a thread that released the GIL
};

// Reads `text` named `name` as ptxdump reads a file (one thread). On failure
// returns null and sets `error` to the `file:line:col: error: ...` lines.
std::shared_ptr<Loaded> loadText(std::string text, std::string name, std::string& error);

// Reads the file at `path` into `text`; false with `error` set
// (`path: error: cannot read file: ...`).
bool readFile(const std::string& path, std::string& text, std::string& error);

// What the dump prints for the value: llvm-dwarfdump's text between the
// parentheses (location-list entries separated by "\n").
std::string attributeText(Loaded& loaded, const ptxdwarf::read::Die& die, const ptxdwarf::read::AttrValue& value);

// DW_TAG_*, DW_AT_* and DW_FORM_* names as the dump spells them (unknown
// values included: "DW_TAG_unknown_4097").
std::string tagName(uint16_t tag);
std::string attributeName(uint16_t name);
std::string formName(uint16_t form);

// Every check rule over the module (what `ptxdump check` reports, the
// reader's warnings apart).
ptxdwarf::Diagnostics runCheck(Loaded& loaded, bool roundTrip);

// A diagnostic as ptxdump prints it: `file:line:col: severity: message [rule]`
// and the section offset where format() left it out.
std::string formatDiagnostic(const ptxdwarf::Diagnostic& d, std::string_view file);

// What a debugger sees at `at` (`ptxdump lookup --at`), and the error line
// ptxdump prints when nothing matched (`file: error: why`).
ptxdwarf::view::LookupResult lookupAt(Loaded& loaded, std::string_view at);
std::string lookupError(const Loaded& loaded, const ptxdwarf::view::LookupResult& r);

// `ptxdump types`' layouts; `ptxdump dump --statistics`' JSON object.
std::vector<ptxdwarf::view::TypeLayout> typeLayouts(const Loaded& loaded);
std::string statisticsJson(Loaded& loaded);

// Exactly what `ptxdump dump` prints for the module with those options.
std::string dumpOutput(const Loaded& loaded, const ptxdwarf::print::FileDumpOptions& options);

}  // namespace ptxdwarf_python
