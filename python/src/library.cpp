#include "library.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

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

// A regular file is mapped and copied whole, as ptxdump reads it: a cubin
// holds NUL bytes (a stream is read up to its first NUL, the end of a PTX text).
bool readFile(const std::string& path, std::string& text, std::string& error) {
  ptxdwarf::FileText file;
  if (!file.load(path, error, /*map=*/true, "ptxdwarf")) {
    error = path + ": error: cannot read file: " + error;
    return false;
  }
  text.assign(file.view());
  if (file.shrank()) {
    error = path + ": error: cannot read file: it shrank while it was read";
    return false;
  }
  return true;
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
  if (loaded.module().fileFormat != "ptx")  // a cubin: its bytes read again, the code placed (view::lookupCubin)
    return ptxdwarf::view::lookupCubin(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(loaded.text.data()), loaded.text.size()),
        loaded.name, at);
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

std::string dumpOutput(const Loaded& loaded, const ptxdwarf::print::FileDumpOptions& options) {
  std::string out;
  ptxdwarf::print::dumpFile(loaded.name, loaded.module(), loaded.dwarf, options, out);
  return out;
}

}  // namespace ptxdwarf_python
