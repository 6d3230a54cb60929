// The output of view::lookup: what a debugger sees at a place, as text or JSON.
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/print/views.h"

namespace ptxdwarf::print {

namespace {

std::string tagText(uint16_t tag) {
  std::string_view name = dw::tagName(tag);
  return name.empty() ? "DW_TAG_" + hex(tag, 8) : std::string(name);
}

}  // namespace

// Every name and path is the file's bytes, escaped as dump escapes them, so a
// name cannot start a line of its own.
void lookupText(std::string_view file, std::string_view at, const view::LookupResult& r, std::string& out) {
  for (const view::Match& m : r.matches) {
    appendEscaped(out, file);
    out += ": ";
    appendEscaped(out, at);
    out += " in ";
    appendEscaped(out, m.function);
    out += ", PTX line";
    out += m.ptxLines.size() == 1 ? " " : "s ";
    for (size_t i = 0; i < m.ptxLines.size(); ++i) out += (i ? ", " : "") + std::to_string(m.ptxLines[i]);
    out += "\n  scopes (innermost first):\n";
    for (const view::ScopeInfo& s : m.scopes) {
      out += "    " + tagText(s.tag);
      if (!s.name.empty()) {
        out += " '";
        appendEscaped(out, s.name);
        out += '\'';
      }
      if (!s.callFile.empty()) {
        out += " called from ";
        appendEscaped(out, s.callFile);
        out += ":" + std::to_string(s.callLine);
      }
      out += " (" + hex(s.die, 8) + ")\n";
    }
    out += "  visible:\n";
    if (m.variables.empty()) out += "    (nothing)\n";
    for (const view::VariableInfo& v : m.variables) {
      out += std::string("    ") + (v.parameter ? "parameter " : "variable  ");
      appendEscaped(out, v.type);
      if (!v.type.ends_with('*') && !v.type.ends_with('&')) out += ' ';
      appendEscaped(out, v.name);
      out += ": ";
      appendEscaped(out, v.location);
      if (v.addressClass) out += " (" + std::string(cuda::addressClassName(v.addressClass)) + ")";
      out += " (" + hex(v.die, 8) + ")\n";
    }
  }
}

void lookupJson(std::string_view file, std::string_view at, const view::LookupResult& r, std::string& out) {
  out += "{\"file\":";
  appendJsonString(out, file);
  out += ",\"at\":";
  appendJsonString(out, at);
  out += ",\"matches\":[";
  for (size_t k = 0; k < r.matches.size(); ++k) {
    const view::Match& m = r.matches[k];
    out += k ? ",{\"function\":" : "{\"function\":";
    appendJsonString(out, m.function);
    out += ",\"ptx_lines\":[";
    for (size_t i = 0; i < m.ptxLines.size(); ++i) out += (i ? "," : "") + std::to_string(m.ptxLines[i]);
    out += "],\"scopes\":[";
    for (size_t i = 0; i < m.scopes.size(); ++i) {
      const view::ScopeInfo& s = m.scopes[i];
      out += i ? ",{\"tag\":" : "{\"tag\":";
      appendJsonString(out, tagText(s.tag));
      out += ",\"name\":";
      appendJsonString(out, s.name);
      out += ",\"die\":" + std::to_string(s.die);
      if (!s.callFile.empty()) {
        out += ",\"call_file\":";
        appendJsonString(out, s.callFile);
        out += ",\"call_line\":" + std::to_string(s.callLine);
      }
      out += '}';
    }
    out += "],\"variables\":[";
    for (size_t i = 0; i < m.variables.size(); ++i) {
      const view::VariableInfo& v = m.variables[i];
      out += i ? ",{\"name\":" : "{\"name\":";
      appendJsonString(out, v.name);
      out += std::string(",\"kind\":\"") + (v.parameter ? "parameter" : "variable") + "\",\"type\":";
      appendJsonString(out, v.type);
      out += ",\"location\":";
      appendJsonString(out, v.location);
      out += std::string(",\"available\":") + (v.available ? "true" : "false") + ",\"address_class\":";
      if (v.addressClass) appendJsonString(out, cuda::addressClassName(v.addressClass));
      else out += "null";
      out += ",\"decl_line\":" + std::to_string(v.declLine) + ",\"die\":" + std::to_string(v.die) + "}";
    }
    out += "]}";
  }
  out += "]}\n";
}


}  // namespace ptxdwarf::print
