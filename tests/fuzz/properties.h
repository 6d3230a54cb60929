// What each fuzz target asserts, shared by the fuzzers and by the regression
// test that replays their findings (fixtures/malformed/fuzz).
#pragma once

#include <string>
#include <string_view>

#include "ptxdwarf/print/dump.h"
#include "fuzz_input.h"
#include "module_text.h"
#include "ptxdwarf/check/check.h"
#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/check/cubin.h"
#include "ptxdwarf/cubin/line_program.h"
#include "ptxdwarf/cubin/regmap.h"
#include "ptxdwarf/elf/elf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/statistics.h"
#include "ptxdwarf/view/lookup.h"
#include "ptxdwarf/view/types.h"
#include "ptxdwarf/write/reencode.h"
#include "ptxdwarf/print/views.h"
#include "ptx/sections_ahead.h"

namespace ptxdwarf::fuzz {

inline std::string formatted(const Diagnostics& diags) {
  std::string out;
  for (const Diagnostic& d : diags.items) out += d.format("fuzz.ptx") + "\n";
  return out;
}

// Whether two reads of one text made the same sections (bytes, operand
// positions, relocations, labels, blocks) and diagnostics, and as many of
// each record of the code: what a read with its sections read ahead can
// get wrong, compared without spelling the module out (testsupport::
// moduleText, a string per byte, would take most of the fuzzer's time).
inline bool sameRead(const ptx::ReadResult& a, const ptx::ReadResult& b, std::string* why) {
  if (formatted(a.diagnostics) != formatted(b.diagnostics)) return *why = "diagnostics", false;
  const ptx::Module &m = a.module, &n = b.module;
  if (m.functions.size() != n.functions.size() || m.variables.size() != n.variables.size() ||
      m.registers.size() != n.registers.size() || m.labels.size() != n.labels.size() ||
      m.locs.size() != n.locs.size() || m.blocks.size() != n.blocks.size() || m.files.size() != n.files.size())
    return *why = "the code's records", false;
  if (m.sections.size() != n.sections.size()) return *why = "the number of sections", false;
  for (size_t i = 0; i < m.sections.size(); ++i) {
    const SectionImage &x = m.sections[i], &y = n.sections[i];
    *why = x.name;
    if (x.name != y.name || !(x.loc == y.loc) || x.bytes != y.bytes || x.negativeOperands != y.negativeOperands ||
        x.relocations.size() != y.relocations.size() || x.labels.size() != y.labels.size() ||
        x.blocks.size() != y.blocks.size())
      return false;
    for (size_t k = 0; k < x.relocations.size(); ++k)
      if (x.relocations[k].offset != y.relocations[k].offset || x.relocations[k].size != y.relocations[k].size ||
          x.relocations[k].expression() != y.relocations[k].expression())
        return false;
    for (size_t k = 0; k < x.labels.size(); ++k)
      if (x.labels[k].name != y.labels[k].name || x.labels[k].offset != y.labels[k].offset ||
          !(x.labels[k].loc == y.labels[k].loc))
        return false;
    for (size_t k = 0; k < x.blocks.size(); ++k)
      if (x.blocks[k].begin != y.blocks[k].begin || x.blocks[k].end != y.blocks[k].end) return false;
    for (uint64_t offset = 0; offset <= x.size(); ++offset)
      if (!(x.locate(offset) == y.locate(offset))) return false;
  }
  return true;
}

// PTX text through the reader and every check rule. Returns false (with the
// reason) when a property breaks: a diagnostic on a line that does not exist,
// a relocation out of order or out of bounds, a read with its `.section`
// blocks read ahead or a parallel check that differs from the one-thread one.
inline bool readAndCheck(std::string_view text, std::string* why) {
  ptx::ReadResult r = ptx::read(text, "fuzz.ptx");
  ptx::ReadOptions twoThreads;
  twoThreads.threads = 2;
  if (!sameRead(r, ptx::readWithSectionsAhead(text, "fuzz.ptx", twoThreads, 1, ptx::AheadSchedule::first), why))
    return *why = "the read with its sections read ahead differs from the one-thread read: " + *why, false;
  uint32_t lines = 1;
  for (char c : text) lines += c == '\n';
  for (const Diagnostic& d : r.diagnostics.items)
    if (d.loc.line > lines) return *why = "diagnostic on line " + std::to_string(d.loc.line), false;
  if (!r.ok()) return true;
  for (const SectionImage& s : r.module.sections) {
    uint64_t end = 0;
    for (const Relocation& rel : s.relocations) {
      if (rel.offset < end || rel.offset + rel.size > s.bytes.size())
        return *why = "relocation out of order or bounds in " + s.name, false;
      end = rel.offset + rel.size;
    }
  }
  read::Dwarf dwarf = read::decode(r.module.sections);
  const std::string checked = formatted(check::run(r.module, dwarf, {.threads = 1}));
  if (checked != formatted(check::run(r.module, dwarf, {.threads = 2})))
    return *why = "the parallel check differs from the one-thread check", false;
  return true;
}

// Raw sections through the decoder and both printers (no property beyond
// "no crash, no hang, no out-of-bounds read": the sanitizers check that).
inline void decodeAndDump(const uint8_t* data, size_t size) {
  std::vector<SectionImage> sections = sectionsFromFuzzInput(data, size);
  read::Dwarf dwarf = read::decode(sections);
  ptx::Module module;
  module.filename = "fuzz.ptx";
  module.sections = sections;
  ptxdwarf::print::DumpOptions all{true, true, true, true, true, true};
  std::string out;
  ptxdwarf::print::dumpText(module, dwarf, all, out);
  ptxdwarf::print::dumpJson(module, dwarf, all, out);
  // The view over the same DIEs: statistics, type layouts, a DIE selection.
  ptxdwarf::print::statisticsJson("fuzz.ptx", view::computeStatistics(module, dwarf), out);
  std::vector<view::TypeLayout> types = view::typeLayouts(dwarf);
  ptxdwarf::print::typesText(types, out);
  ptxdwarf::print::typesJson("fuzz.ptx", types, out);
  ptxdwarf::print::DumpOptions selected;
  selected.names = {"a", "main"};
  selected.ignoreCase = selected.showChildren = selected.showParents = selected.showForm = true;
  selected.recurseDepth = 2;
  ptxdwarf::print::dumpText(module, dwarf, selected, out);
}

// withValues: preserve mode keeps everything; canonical mode keeps tags,
// attributes and strings but not the padding NULLs after a unit's DIE.
inline std::string shape(const read::Dwarf& d, bool withValues) {
  std::string s;
  for (const read::Die& die : d.dies) {
    if (!withValues && die.isNull() && die.depth == 0) continue;
    s += std::to_string(die.depth) + ":" + std::to_string(die.tag) + "(";
    for (const read::AttrValue& v : d.attributes(die)) {
      s += std::to_string(v.name) + "=";
      if (v.isString()) s += std::string(v.string());
      else if (withValues && !v.isReference()) s += std::to_string(v.value);
      s += ",";
    }
    s += ")";
  }
  return s;
}

// decode -> encode -> decode gives the same model: preserve mode with every
// value, canonical mode with the same tags, attributes and strings.
inline bool roundTrips(const uint8_t* data, size_t size, std::string* why) {
  std::vector<SectionImage> sections = sectionsFromFuzzInput(data, size);
  read::Dwarf first = read::decode(sections);
  if (first.diagnostics.hasErrors()) return true;  // a model exists only for valid input
  Diagnostics diags;
  std::vector<SectionImage> preserved = write::encodePreserve(first, diags);
  read::Dwarf again = read::decode(preserved);
  if (again.diagnostics.hasErrors() || shape(again, true) != shape(first, true))
    return *why = "preserve-mode re-encoding decodes to a different model", false;
  std::vector<SectionImage> canonical = write::encodeCanonical(first, diags);
  if (diags.hasErrors()) return true;  // refused with a diagnostic (e.g. a DIE with tag 0)
  read::Dwarf third = read::decode(canonical);
  if (third.diagnostics.hasErrors() || shape(third, false) != shape(first, false))
    return *why = "canonical re-encoding decodes to a different model", false;
  return true;
}

// The cubin decoders on one section's bytes: line programs with NVIDIA's
// inlined-call extension and every row's inline stack, file paths, and the
// register map. Nothing to assert but that they return.
inline void decodeAsCubinSection(std::span<const uint8_t> bytes, std::span<const uint8_t> str) {
  for (const cubin::LineTable& t : cubin::decodeLinePrograms(bytes)) {
    for (size_t i = 0; i < t.rows.size() && i < 4096; ++i) (void)cubin::inlineStack(t, i, str);
    for (size_t f = 1; f <= t.header.files.size() + 1; ++f) (void)t.header.filePath(f);
  }
  cubin::RegMap map = cubin::decodeRegMap(bytes);
  for (const cubin::RegMapFunction& f : map.functions)
    for (const cubin::RegMapEntry& e : f.entries) (void)cubin::sassLocation(e.location);
}

// The debugger's view on a cubin: at its first functions' entries and a
// few bytes into them, and at a line of each of its first source files.
inline void lookUpInCubin(std::span<const uint8_t> input) {
  cubin::ReadResult r = cubin::read(input, "fuzz.cubin");
  if (!r.ok()) return;
  std::vector<std::string> places;
  for (size_t i = 0; i < r.cubin.code.size() && i < 3; ++i) {
    places.push_back(r.cubin.code[i].name);
    places.push_back(r.cubin.code[i].name + "+0x10");
  }
  for (size_t i = 0; i < r.module.files.size() && i < 3; ++i) places.push_back(r.module.files[i].path + ":3");
  for (const std::string& where : places) (void)view::lookupCubin(input, "fuzz.cubin", where);
}

// Raw bytes as a cubin: the ELF64 reader (header, section names, symbol
// tables, every section with its relocations applied), lookup, the cubin
// decoders on every section, and the cubin check rules; bytes that are no
// ELF go to the decoders whole. Bad input must come back as an error or a
// problem; a read outside the input is ASan's to catch.
inline void readAsCubin(std::span<const uint8_t> input) {
  elf::Error error;
  std::optional<elf::File> file = elf::File::parse(input, error);
  if (!file) return decodeAsCubinSection(input, input);
  lookUpInCubin(input);
  for (const elf::Section& s : file->sections()) {
    if (s.type == elf::SHT_SYMTAB) (void)file->symbols(s, error);
    if (s.type == elf::SHT_REL || s.type == elf::SHT_RELA) (void)file->relocations(s, error);
    elf::RelocationReport report;
    std::optional<std::vector<uint8_t>> bytes = file->relocatedContents(s, error, &report);
    if (bytes) decodeAsCubinSection(*bytes, file->contents(s));
  }
  // The cubin rules on what load() makes of it, through its embedded PTX.
  const Loaded cubin = loadText(std::string_view(reinterpret_cast<const char*>(input.data()), input.size()), "fuzz");
  if (cubin.ok()) (void)check::runCubin(cubin);
}

}  // namespace ptxdwarf::fuzz
