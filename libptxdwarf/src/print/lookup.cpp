// The output of view::lookup: what a debugger sees at a place, as text or JSON.
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/print/json.h"
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
    if (m.pc) {  // a cubin: the SASS address, the source line there, the embedded PTX's line
      out += "+" + hex(*m.pc);
      if (m.line) out += ", line " + std::to_string(m.line);
    }
    if (!m.pc || !m.ptxLines.empty()) {
      out += ", PTX line";
      out += m.ptxLines.size() == 1 ? " " : "s ";
      for (size_t i = 0; i < m.ptxLines.size(); ++i) out += (i ? ", " : "") + std::to_string(m.ptxLines[i]);
    }
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
      if (r.cubin && !v.available) {
        out += "<optimized out> (";
        appendEscaped(out, v.location);
        out += ')';
      } else {
        appendEscaped(out, v.location);
      }
      for (size_t i = 0; v.sass && i < v.sass->size(); ++i) {
        out += i ? ":" : " = ";
        appendEscaped(out, (*v.sass)[i]);
      }
      if (v.addressClass) out += " (" + std::string(cuda::addressClassName(v.addressClass)) + ")";
      out += " (" + hex(v.die, 8) + ")\n";
    }
  }
}

void lookupJson(std::string_view file, std::string_view at, const view::LookupResult& r, std::string& out) {
  JsonWriter w(out);
  w.objectBegin();
  w.field("file", file);
  w.field("at", at);
  w.key("matches");
  w.arrayBegin();
  for (const view::Match& m : r.matches) {
    w.objectBegin();
    w.field("function", m.function);
    if (m.pc) w.field("pc", *m.pc);
    w.key("ptx_lines");
    w.arrayBegin();
    for (uint32_t line : m.ptxLines) w.value(line);
    w.arrayEnd();
    w.key("scopes");
    w.arrayBegin();
    for (const view::ScopeInfo& s : m.scopes) {
      w.objectBegin();
      w.field("tag", tagText(s.tag));
      w.field("name", s.name);
      w.field("die", s.die);
      if (!s.callFile.empty()) {
        w.field("call_file", s.callFile);
        w.field("call_line", s.callLine);
      }
      w.objectEnd();
    }
    w.arrayEnd();
    w.key("variables");
    w.arrayBegin();
    for (const view::VariableInfo& v : m.variables) {
      w.objectBegin();
      w.field("name", v.name);
      w.field("kind", v.parameter ? "parameter" : "variable");
      w.field("type", v.type);
      w.field("location", v.location);
      w.key("available");
      w.boolean(v.available);
      if (v.sass) {
        w.key("sass");
        w.arrayBegin();
        for (const std::string& s : *v.sass) w.value(s);
        w.arrayEnd();
      }
      w.field("address_class", v.addressClass ? std::optional(cuda::addressClassName(v.addressClass)) : std::nullopt);
      w.field("decl_line", v.declLine);
      w.field("die", v.die);
      w.objectEnd();
    }
    w.arrayEnd();
    w.objectEnd();
  }
  w.arrayEnd();
  w.objectEnd();
  out += '\n';
}

}  // namespace ptxdwarf::print
