// The file table is printed as ptxas writes it into the cubin's .debug_line
// (include_directories + file_names); the rows have a PTX position where
// llvm-dwarfdump has a SASS address: the line of the instruction each `.loc`
// applies to, and its function. Inlined rows are followed by their inline
// stack, innermost first, with demangled names.
#include "ptxdwarf/print/line.h"

#include <cstdio>

#include "ptxdwarf/demangle.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/inline_frames.h"
#include "ptxdwarf/print/json.h"

namespace ptxdwarf::print {


namespace {

void padLeft(std::string& out, std::string_view s, size_t width) {
  if (s.size() < width) out.append(width - s.size(), ' ');
  out += s;
}

void appendNumberField(std::string& out, uint64_t v, size_t width) {
  char buf[24];
  int n = std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
  padLeft(out, std::string_view(buf, static_cast<size_t>(n)), width);
}

std::string calleeName(const ptx::Module& m, const ptx::LineTable& t, const ptx::LocInlining& r) {
  if (const auto& name = t.functionNames[r.functionName]) return demangle(*name);
  return m.locFunctionNames[r.functionName] + " (no string in .debug_str)";
}

// The PTX line of the instruction a `.loc` applies to, or 0 when none follows it.
uint32_t instructionLine(const ptx::Module& m, const ptx::LocRecord& r) {
  if (r.function < 0 || r.instruction == ptx::kNoIndex) return 0;
  const ptx::Function& f = m.functions[static_cast<size_t>(r.function)];
  return r.instruction < f.endInstruction ? m.instructions[r.instruction].line : 0;
}

void fileTableText(const ptx::LineTable& t, std::string& out) {
  for (size_t i = 0; i < t.includeDirectories.size(); ++i) {
    out += "include_directories[";
    appendNumberField(out, i + 1, 3);
    out += "] = \"";
    appendEscaped(out, t.includeDirectories[i]);
    out += "\"\n";
  }
  for (const ptx::LineFile& f : t.files) {
    out += "file_names[";
    appendNumberField(out, f.index, 3);
    out += "]:\n           name: \"";
    appendEscaped(out, f.name);
    out += "\"\n      dir_index: ";
    appendDec(out, f.directory);
    out += "\n       mod_time: ";
    appendHex(out, f.modificationTime, 8);
    out += "\n         length: ";
    appendHex(out, f.length, 8);
    out += '\n';
  }
}

void rowText(const ptx::Module& m, const ptx::LineTable& t, uint32_t row, std::string& out) {
  const ptx::LocRecord& r = m.locs[t.rows[row].loc];
  std::string address = "ptx:";
  if (uint32_t line = instructionLine(m, r)) address += std::to_string(line);
  else address += '-';
  out += address;
  if (address.size() < 18) out.append(18 - address.size(), ' ');
  appendNumberField(out, r.line, 7);
  appendNumberField(out, r.col, 7);
  appendNumberField(out, r.file, 7);
  out += ' ';
  if (r.function < 0) out += "(module scope)";
  else appendEscaped(out, m.functions[static_cast<size_t>(r.function)].name);
  out += '\n';
  if (!r.isInlined()) return;
  const std::vector<uint32_t> stack = t.inlineStack(row, kInlineFramesShown);
  for (size_t k = 0; k < stack.size(); ++k) {
    const ptx::LocRecord& frame = m.locs[t.rows[stack[k]].loc];
    if (!frame.isInlined()) break;  // the outermost row: the function itself
    out += "                   inlined: ";
    appendEscaped(out, calleeName(m, t, m.inliningOf(frame)));
    out += " at ";
    appendSourcePosition(out, t, m.inliningOf(frame).inlinedAt);
    if (t.rows[stack[k]].caller == ptx::kNoIndex) out += " (no earlier .loc used this location)";
    out += '\n';
  }
  if (const uint32_t omitted = inlineFramesOmitted(t.rows[row].inlineDepth)) {
    out += "                   (" + std::to_string(omitted) + " more inline frames)\n";
  }
}

void positionJson(JsonWriter& w, std::string_view key, const ptx::SourcePosition& p) {
  w.key(key);
  w.objectBegin();
  w.field("file", p.file);
  w.field("line", p.line);
  w.field("column", p.col);
  w.objectEnd();
}

void inlineStackJson(JsonWriter& w, const ptx::Module& m, const ptx::LineTable& t, uint32_t row) {
  w.key("inline_stack");
  w.arrayBegin();
  for (uint32_t k : t.inlineStack(row, kInlineFramesShown)) {
    const ptx::LocRecord& record = m.locs[t.rows[k].loc];
    if (!record.isInlined()) break;
    const ptx::LocInlining& frame = m.inliningOf(record);
    w.objectBegin();
    w.field("function_name", m.locFunctionNames[frame.functionName]);
    const auto& name = t.functionNames[frame.functionName];
    w.field("name", name ? std::optional(demangle(*name)) : std::nullopt);
    positionJson(w, "inlined_at", frame.inlinedAt);
    w.key("resolved");
    w.boolean(t.rows[k].caller != ptx::kNoIndex);
    w.objectEnd();
  }
  w.arrayEnd();
}

void rowJson(JsonWriter& w, const ptx::Module& m, const ptx::LineTable& t, uint32_t row) {
  const ptx::LocRecord& r = m.locs[t.rows[row].loc];
  w.objectBegin();
  w.key("function");
  if (r.function < 0) w.null();
  else w.value(m.functions[static_cast<size_t>(r.function)].name);
  const uint32_t line = instructionLine(m, r);
  w.field("ptx_line", line ? std::optional(line) : std::nullopt);
  w.field("loc_line", r.loc.line);
  w.field("file", r.file);
  w.field("line", r.line);
  w.field("column", r.col);
  if (r.isInlined()) {
    w.field("function_name", m.locFunctionNames[m.inliningOf(r).functionName]);
    positionJson(w, "inlined_at", m.inliningOf(r).inlinedAt);
    inlineStackJson(w, m, t, row);
    if (const uint32_t omitted = inlineFramesOmitted(t.rows[row].inlineDepth))
      w.field("inline_frames_omitted", omitted);
  }
  w.objectEnd();
}

}  // namespace

void appendSourcePosition(std::string& out, const ptx::LineTable& t, const ptx::SourcePosition& p) {
  if (const ptx::LineFile* f = t.file(p.file)) appendEscaped(out, ptx::pathOf(t, *f));
  else out += "<no .file " + std::to_string(p.file) + ">";
  out += ':';
  appendDec(out, p.line);
  out += ':';
  appendDec(out, p.col);
}

void lineTableText(const ptx::Module& module, std::string& out, const std::function<void()>& drain) {
  out += "\n.debug_line contents:\n";
  if (module.files.empty() && module.locs.empty()) {
    out += "< EMPTY >\n";
    return;
  }
  const ptx::LineTable t = ptx::buildLineTable(module);
  out += "PTX line table: from the .file and .loc directives (ptxas builds .debug_line from them)\n";
  fileTableText(t, out);
  out += "\nAddress (PTX)        Line Column   File Function\n"
         "------------------ ------ ------ ------ --------\n";
  for (uint32_t i = 0; i < t.rows.size(); ++i) {
    rowText(module, t, i, out);
    if (drain) drain();
  }
}

void lineTableJson(const ptx::Module& module, JsonWriter& w, const std::function<void()>& drain) {
  const ptx::LineTable t = ptx::buildLineTable(module);
  w.key("line");
  w.objectBegin();
  w.key("include_directories");
  w.arrayBegin();
  for (const std::string& d : t.includeDirectories) w.value(d);
  w.arrayEnd();
  w.key("files");
  w.arrayBegin();
  for (const ptx::LineFile& f : t.files) {
    const ptx::FileEntry& e = module.files[f.entry];
    w.objectBegin();
    w.field("index", f.index);
    w.field("path", e.path);
    w.field("timestamp", e.timestamp);
    w.field("size", e.size);
    w.field("directory", f.directory);
    w.field("name", f.name);
    w.objectEnd();
  }
  w.arrayEnd();
  w.key("rows");
  w.arrayBegin();
  for (uint32_t i = 0; i < t.rows.size(); ++i) {
    rowJson(w, module, t, i);
    if (drain) drain();
  }
  w.arrayEnd();
  w.objectEnd();
}

}  // namespace ptxdwarf::print
