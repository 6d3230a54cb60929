#include "module_text.h"

#include <string_view>

namespace ptxdwarf::testsupport {
namespace {

std::string at(SourceLoc l) { return "@" + std::to_string(l.line) + ":" + std::to_string(l.col); }

void variable(std::string& out, const ptx::Module& m, const ptx::Variable& v) {
  out += "  var " + v.name.str() + " " + std::string(ptx::stateSpaceName(v.space)) + " " + v.type.str() +
         " align=" + std::to_string(v.align) + " linkage=" + std::to_string(static_cast<int>(v.linkage)) +
         " function=" + std::to_string(v.function) + " block=" + std::to_string(v.block) + " dims=";
  for (uint64_t d : m.dimsOf(v)) out += std::to_string(d) + ",";
  out += " " + at(v.loc) + "\n";
}

void section(std::string& out, const SectionImage& s) {
  out += "section " + s.name + " " + at(s.loc) + " size=" + std::to_string(s.size()) + "\n ";
  for (size_t i = 0; i < s.bytes.size(); ++i)
    out += " " + std::to_string(s.bytes[i]) + at(s.locate(i));
  out += "\n";
  for (const Relocation& r : s.relocations)
    out += "  reloc " + std::to_string(r.offset) + " " + std::to_string(r.size) + " " + r.expression() + "\n";
  for (const SectionLabel& l : s.labels) out += "  label " + l.name + " " + std::to_string(l.offset) + at(l.loc) + "\n";
  for (const TextRange& b : s.blocks) out += "  block " + std::to_string(b.begin) + ".." + std::to_string(b.end) + "\n";
  for (uint32_t n : s.negativeOperands) out += "  negative " + std::to_string(n) + "\n";
}

}  // namespace

std::string moduleText(const ptx::ReadResult& result) {
  const ptx::Module& m = result.module;
  std::string out = "file " + m.filename + "\nversion " + std::to_string(m.version.major) + "." +
                    std::to_string(m.version.minor) + (m.version.present ? "" : " absent") + at(m.versionLoc) +
                    "\ntarget";
  for (const std::string& t : m.targets) out += " " + t;
  out += (m.debug ? " (debug)" : "") + at(m.targetLoc) + "\naddress_size " + std::to_string(m.addressSize) +
         at(m.addressSizeLoc) + "\n";
  for (const ptx::FileEntry& f : m.files)
    out += "file " + std::to_string(f.index) + " " + f.path + " " + std::to_string(f.timestamp.value_or(0)) + " " +
           std::to_string(f.size.value_or(0)) + at(f.loc) + "\n";
  auto inlining = [&](const ptx::LocRecord& l) {
    if (!l.isInlined()) return std::string();
    const ptx::LocInlining& i = m.locInlinings.at(l.inlining);
    return " function_name=" + m.locFunctionNames.at(i.functionName) + " inlined_at=" +
           std::to_string(i.inlinedAt.file) + ":" + std::to_string(i.inlinedAt.line) + ":" +
           std::to_string(i.inlinedAt.col) + at(i.functionNameLoc) + at(i.inlinedAtLoc);
  };
  for (const ptx::LocRecord& l : m.locs)
    out += "loc " + std::to_string(l.file) + " " + std::to_string(l.line) + " " + std::to_string(l.col) +
           " function=" + std::to_string(l.function) + " instruction=" + std::to_string(l.instruction) +
           inlining(l) + at(l.loc) + "\n";
  for (size_t i = 0; i < m.instructions.size(); ++i)
    out += "instruction " + std::to_string(i) + at({m.instructions[i].line, m.instructions[i].col}) + "\n";
  for (const ptx::Block& b : m.blocks)
    out += "block function=" + std::to_string(b.function) + " parent=" + std::to_string(b.parent) + " [" +
           std::to_string(b.firstInstruction) + "," + std::to_string(b.endInstruction) + ")" + at(b.open) +
           at(b.close) + "\n";
  for (const ptx::Function& f : m.functions) {
    out += std::string(f.isEntry ? "entry " : "func ") + f.name + " linkage=" +
           std::to_string(static_cast<int>(f.linkage)) + (f.hasBody ? " body" : "") + at(f.loc) + at(f.bodyBegin) +
           at(f.bodyEnd) + " instructions [" + std::to_string(f.firstInstruction) + "," +
           std::to_string(f.endInstruction) + ")" + (m.findFunction(f.name) ? " indexed" : " NOT INDEXED") + "\n";
    out += "  parameters [" + std::to_string(f.firstReturn) + "," + std::to_string(f.firstParam) + "," +
           std::to_string(f.endParam) + ") registers [" + std::to_string(f.firstRegister) + "," +
           std::to_string(f.endRegister) + ")\n";
    for (const ptx::Variable& v : m.returnsOf(f)) variable(out, m, v);
    for (const ptx::Variable& v : m.paramsOf(f)) variable(out, m, v);
    for (const ptx::RegisterDecl& r : m.registersOf(f))
      out += "  reg " + r.name.str() + " " + r.type.str() + " " + std::to_string(r.count) + " block=" + std::to_string(r.block) +
             at(r.loc) + "\n";
    for (uint32_t l = f.firstLabel; l < f.endLabel; ++l) out += "  label " + m.labels.at(l).name.str() + "\n";
  }
  for (const ptx::Variable& v : m.variables) variable(out, m, v);
  for (const ptx::Label& l : m.labels)
    out += "label " + l.name.str() + " function=" + std::to_string(m.functionOf(l)) + " instruction=" +
           std::to_string(l.instruction) + "@" + std::to_string(l.line) +
           (m.findLabel(l.name) ? "" : " NOT INDEXED") + "\n";
  for (const SectionImage& s : m.sections) section(out, s);
  for (const Diagnostic& d : result.diagnostics.items) out += d.format(m.filename) + "\n";
  return out;
}

}  // namespace ptxdwarf::testsupport
