// The file table is printed as ptxas writes it into the cubin's .debug_line
// (include_directories + file_names); the rows have a PTX position where
// llvm-dwarfdump has a SASS address: the line of the instruction each `.loc`
// applies to, and its function. Inlined rows are followed by their inline
// stack, innermost first, with demangled names.
#include "ptxdwarf/print/line.h"

#include <cstdio>

#include "ptxdwarf/demangle.h"
#include "ptxdwarf/format.h"

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

// `path:line:col` of a source position, the path resolved through the file table.
void appendPosition(std::string& out, const ptx::LineTable& t, const ptx::SourcePosition& p) {
  if (const ptx::LineFile* f = t.file(p.file)) appendEscaped(out, ptx::pathOf(t, *f));
  else out += "<no .file " + std::to_string(p.file) + ">";
  out += ':';
  appendDec(out, p.line);
  out += ':';
  appendDec(out, p.col);
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

// A row shows at most this many frames of its inline stack, and how many
// more there are: real stacks are tens deep, but a stack may be as deep as
// the file has `.loc`s, and every row's whole stack would be O(n^2) output
// (20,000 rows each inlined into the one before: 9 GB).
constexpr size_t kInlineFramesShown = 64;

uint32_t framesOmitted(const ptx::LineTable& t, uint32_t row) {
  const uint32_t depth = t.rows[row].inlineDepth;
  return depth > kInlineFramesShown ? depth - static_cast<uint32_t>(kInlineFramesShown) : 0;
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
    appendPosition(out, t, m.inliningOf(frame).inlinedAt);
    if (t.rows[stack[k]].caller == ptx::kNoIndex) out += " (no earlier .loc used this location)";
    out += '\n';
  }
  if (const uint32_t omitted = framesOmitted(t, row)) {
    out += "                   (" + std::to_string(omitted) + " more inline frames)\n";
  }
}

void appendNullable(std::string& out, bool present, uint64_t v) {
  if (present) appendDec(out, v);
  else out += "null";
}

void positionJson(std::string& out, const ptx::SourcePosition& p) {
  out += "{\"file\":";
  appendDec(out, p.file);
  out += ",\"line\":";
  appendDec(out, p.line);
  out += ",\"column\":";
  appendDec(out, p.col);
  out += '}';
}

void rowJson(const ptx::Module& m, const ptx::LineTable& t, uint32_t row, std::string& out) {
  const ptx::LocRecord& r = m.locs[t.rows[row].loc];
  out += "{\"function\":";
  if (r.function < 0) out += "null";
  else appendJsonString(out, m.functions[static_cast<size_t>(r.function)].name);
  out += ",\"ptx_line\":";
  uint32_t line = instructionLine(m, r);
  appendNullable(out, line != 0, line);
  out += ",\"loc_line\":";
  appendDec(out, r.loc.line);
  out += ",\"file\":";
  appendDec(out, r.file);
  out += ",\"line\":";
  appendDec(out, r.line);
  out += ",\"column\":";
  appendDec(out, r.col);
  if (r.isInlined()) {
    out += ",\"function_name\":";
    appendJsonString(out, m.locFunctionNames[m.inliningOf(r).functionName]);
    out += ",\"inlined_at\":";
    positionJson(out, m.inliningOf(r).inlinedAt);
    out += ",\"inline_stack\":[";
    bool first = true;
    for (uint32_t k : t.inlineStack(row, kInlineFramesShown)) {
      const ptx::LocRecord& record = m.locs[t.rows[k].loc];
      if (!record.isInlined()) break;
      const ptx::LocInlining& frame = m.inliningOf(record);
      if (!first) out += ',';
      first = false;
      out += "{\"function_name\":";
      appendJsonString(out, m.locFunctionNames[frame.functionName]);
      out += ",\"name\":";
      const auto& name = t.functionNames[frame.functionName];
      if (name) appendJsonString(out, demangle(*name));
      else out += "null";
      out += ",\"inlined_at\":";
      positionJson(out, frame.inlinedAt);
      out += ",\"resolved\":";
      out += t.rows[k].caller != ptx::kNoIndex ? "true" : "false";
      out += '}';
    }
    out += ']';
    if (const uint32_t omitted = framesOmitted(t, row)) {
      out += ",\"inline_frames_omitted\":";
      appendDec(out, omitted);
    }
  }
  out += '}';
}

}  // namespace

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

void lineTableJson(const ptx::Module& module, std::string& out, const std::function<void()>& drain) {
  const ptx::LineTable t = ptx::buildLineTable(module);
  out += "\"line\":{\"include_directories\":[";
  for (size_t i = 0; i < t.includeDirectories.size(); ++i) {
    if (i) out += ',';
    appendJsonString(out, t.includeDirectories[i]);
  }
  out += "],\"files\":[";
  for (size_t i = 0; i < t.files.size(); ++i) {
    const ptx::LineFile& f = t.files[i];
    const ptx::FileEntry& e = module.files[f.entry];
    if (i) out += ',';
    out += "{\"index\":";
    appendDec(out, f.index);
    out += ",\"path\":";
    appendJsonString(out, e.path);
    out += ",\"timestamp\":";
    appendNullable(out, e.timestamp.has_value(), e.timestamp.value_or(0));
    out += ",\"size\":";
    appendNullable(out, e.size.has_value(), e.size.value_or(0));
    out += ",\"directory\":";
    appendDec(out, f.directory);
    out += ",\"name\":";
    appendJsonString(out, f.name);
    out += '}';
  }
  out += "],\"rows\":[";
  for (uint32_t i = 0; i < t.rows.size(); ++i) {
    if (i) out += ',';
    rowJson(module, t, i, out);
    if (drain) drain();
  }
  out += "]}";
}

}  // namespace ptxdwarf::print
