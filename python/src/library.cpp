#include "library.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "ptxdwarf/format.h"
#include "ptxdwarf/load.h"
#include "ptxdwarf/print/render.h"
#include "ptxdwarf/print/views.h"
#include "ptxdwarf/view/statistics.h"

namespace ptxdwarf_python {

namespace ptx = ptxdwarf::ptx;
namespace read = ptxdwarf::read;

struct AttributeRenderer {
  explicit AttributeRenderer(const Loaded& loaded) : renderer(loaded.module(), loaded.dwarf) {}
  ptxdwarf::print::Renderer renderer;
};

Loaded::~Loaded() = default;

const ptx::LineTable& Loaded::lineTable() {
  std::call_once(lineTableOnce_, [this] { lineTable_ = ptx::buildLineTable(module()); });
  return *lineTable_;
}

AttributeRenderer& Loaded::renderer() {
  if (!renderer_) renderer_ = std::make_unique<AttributeRenderer>(*this);
  return *renderer_;
}

const ptxdwarf::view::SubtreeEnds& Loaded::subtreeEnds() {
  if (!subtreeEnds_) subtreeEnds_.emplace(dwarf);
  return *subtreeEnds_;
}

namespace {

void appendErrors(const ptxdwarf::Diagnostics& diagnostics, std::string_view name, std::string& error) {
  for (const ptxdwarf::Diagnostic& d : diagnostics.items) {
    if (d.severity != ptxdwarf::Severity::error) continue;
    if (!error.empty()) error += '\n';
    error += formatDiagnostic(d, name);
  }
}

}  // namespace

bool readFile(const std::string& path, std::string& text, std::string& error) {
  if (ptxdwarf::readWholeFile(path, text, error)) return true;
  error = path + ": error: cannot read file: " + error;
  return false;
}

std::shared_ptr<Loaded> loadText(std::string text, std::string name, std::string& error) {
  auto loaded = std::make_shared<Loaded>();
  loaded->name = std::move(name);
  loaded->text = std::move(text);
  // One thread (the library starts none unless asked); the name index is
  // what check resolves symbols with: built when check() first needs it
  // (Loaded::indexNames), not for a walk of the DIEs.
  ptxdwarf::Loaded core = ptxdwarf::loadText(loaded->text, loaded->name, {.threads = 1, .nameIndex = false});
  if (!core.ok()) {
    appendErrors(core.read.diagnostics, loaded->name, error);
    return nullptr;
  }
  loaded->read = std::move(core.read);
  loaded->dwarf = std::move(core.dwarf);
  return loaded;
}

std::string attributeText(Loaded& loaded, const read::Die& die, const read::AttrValue& value) {
  std::string out;
  loaded.renderer().renderer.attributeValue(out, die, value, -1);
  return out;
}

std::string tagName(uint16_t tag) {
  std::string out;
  ptxdwarf::print::appendTagName(out, tag);
  return out;
}

std::string attributeName(uint16_t name) {
  std::string out;
  ptxdwarf::print::appendAttrName(out, name);
  return out;
}

std::string formName(uint16_t form) {
  std::string out;
  ptxdwarf::print::appendFormName(out, form);
  return out;
}

void Loaded::indexNames() {
  std::call_once(indexOnce_, [this] { read.module.reindex(); });
}

ptxdwarf::Diagnostics runCheck(Loaded& loaded, bool roundTrip) {
  loaded.indexNames();
  ptxdwarf::check::Options options;
  options.roundTrip = roundTrip;
  options.threads = 1;
  return ptxdwarf::check::run(loaded.module(), loaded.dwarf, options);
}

std::string formatDiagnostic(const ptxdwarf::Diagnostic& d, std::string_view file) {
  std::string out = d.format(file);
  if (!d.section.empty() && d.offset >= 0 && d.loc.line != 0) {  // else format() named the offset
    char buf[64];
    std::snprintf(buf, sizeof buf, " (%s+0x%llx)", d.section.c_str(), static_cast<unsigned long long>(d.offset));
    out += buf;
  }
  return out;
}

ptxdwarf::view::LookupResult lookupAt(Loaded& loaded, std::string_view at) {
  loaded.indexNames();  // a function named by its PTX name
  return ptxdwarf::view::lookup(loaded.module(), loaded.dwarf, at);
}

std::string lookupError(const Loaded& loaded, const ptxdwarf::view::LookupResult& r) {
  std::string out;
  ptxdwarf::appendEscaped(out, loaded.name);
  out += ": error: ";
  ptxdwarf::appendUnprintableEscaped(out, r.error);
  return out;
}

std::vector<ptxdwarf::view::TypeLayout> typeLayouts(const Loaded& loaded) {
  return ptxdwarf::view::typeLayouts(loaded.dwarf);
}

std::string statisticsJson(Loaded& loaded) {
  loaded.indexNames();  // scopes whose low_pc names a function
  std::string out;
  ptxdwarf::print::statisticsJson(loaded.name, ptxdwarf::view::computeStatistics(loaded.module(), loaded.dwarf), out);
  return out;
}

namespace {

bool hasDebugSections(const ptx::Module& m) {
  for (const ptxdwarf::SectionImage& s : m.sections)
    if (s.name.starts_with(".debug")) return true;
  return false;
}

bool hasLineInformation(const ptx::Module& m) { return !m.files.empty() || !m.locs.empty(); }

}  // namespace

// ptxdump's runDump for one PTX file: with no section named, a file with
// `.loc` lines and no .debug_info (a -lineinfo build) shows its line table.
std::string dumpOutput(const Loaded& loaded, const DumpRequest& request) {
  const ptx::Module& m = loaded.module();
  ptxdwarf::print::DumpOptions sections = request.sections;
  if (request.defaultSections && !m.section(".debug_info") && hasLineInformation(m)) {
    sections.info = false;
    sections.line = true;
  }
  std::string out;
  if (request.format != DumpRequest::Format::text)
    ptxdwarf::print::dumpJson(m, loaded.dwarf, sections, out, {}, request.format == DumpRequest::Format::jsonLines);
  else if (!hasDebugSections(m) && !hasLineInformation(m))
    out = loaded.name + ": no debug sections\n";
  else
    ptxdwarf::print::dumpText(m, loaded.dwarf, sections, out);
  return out;
}

}  // namespace ptxdwarf_python
