#include "library.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "dump_util.h"  // ptxdump's value renderer until the library's print layer has it

namespace ptxdwarf_python {

namespace ptx = ptxdwarf::ptx;
namespace read = ptxdwarf::read;

struct AttributeRenderer {
  explicit AttributeRenderer(const Loaded& loaded) : renderer(loaded.module(), loaded.dwarf) {}
  ptxdump::detail::Renderer renderer;
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

// The largest file read (ptxdump's limit: the whole text is held in memory).
constexpr uint64_t kMaxFileSize = uint64_t{1} << 30;

void appendErrors(const ptxdwarf::Diagnostics& diagnostics, std::string_view name, std::string& error) {
  for (const ptxdwarf::Diagnostic& d : diagnostics.items) {
    if (d.severity != ptxdwarf::Severity::error) continue;
    if (!error.empty()) error += '\n';
    error += formatDiagnostic(d, name);
  }
}

}  // namespace

bool readFile(const std::string& path, std::string& text, std::string& error) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    error = path + ": error: cannot read file: " + std::strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    error = path + ": error: cannot read file: it is a directory";
    return false;
  }
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kMaxFileSize) {
    error = path + ": error: cannot read file: larger than 1 GiB";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": error: cannot read file: " + std::strerror(errno);
    return false;
  }
  // One allocation of the file's size (a pipe or device: grown as it is read).
  text.clear();
  if (S_ISREG(st.st_mode)) text.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxFileSize) {
      error = path + ": error: cannot read file: larger than 1 GiB";
      return false;
    }
  }
  if (in.bad()) {
    error = path + ": error: cannot read file: read failed";
    return false;
  }
  return true;
}

std::shared_ptr<Loaded> loadText(std::string text, std::string name, std::string& error) {
  auto loaded = std::make_shared<Loaded>();
  loaded->name = std::move(name);
  loaded->text = std::move(text);
  ptx::ReadOptions options;
  options.threads = 1;  // the library starts no thread unless asked
  // The name index is what check resolves symbols with: built when check()
  // first needs it (Loaded::indexNames), not for a walk of the DIEs.
  options.index = false;
  loaded->read = ptx::read(loaded->text, loaded->name, options);
  if (!loaded->read.ok()) {
    appendErrors(loaded->read.diagnostics, loaded->name, error);
    return nullptr;
  }
  if (!loaded->read.module.version.present) {
    // As ptxdump: an empty file included, it is not PTX.
    error = loaded->name + ":1:1: error: no .version directive: this is not PTX (ptxas rejects a file without one)";
    return nullptr;
  }
  loaded->read.module.indexFiles();
  loaded->dwarf = read::decode(loaded->read.module.sections);
  return loaded;
}

std::string attributeText(Loaded& loaded, const read::Die& die, const read::AttrValue& value) {
  std::string out;
  loaded.renderer().renderer.attributeValue(out, die, value, -1);
  return out;
}

std::string tagName(uint16_t tag) {
  std::string out;
  ptxdump::detail::appendTagName(out, tag);
  return out;
}

std::string attributeName(uint16_t name) {
  std::string out;
  ptxdump::detail::appendAttrName(out, name);
  return out;
}

std::string formName(uint16_t form) {
  std::string out;
  ptxdump::detail::appendFormName(out, form);
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

}  // namespace ptxdwarf_python
