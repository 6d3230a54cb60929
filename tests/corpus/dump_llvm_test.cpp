// Our dump of each corpus PTX file against llvm-dwarfdump 14 on the cubin
// ptxas makes of it, all six sections, line for line. A line may differ only
// by the extensions documented in libptxdwarf/src/print/text.cpp:
//  - "(0xNN ADDR_xxx)" for DW_AT_address_class (llvm: "(0xNN)");
//  - "DW_OP_regx %r1" / "DW_OP_bregx %r1 +N" (llvm: the packed number);
//  - relocated values: where our line prints a PTX symbol, llvm prints the
//    number ptxas filled in; then every number or symbol of the value may differ;
//  - `DW_OP_addr __local_depotN` where ptxas wrote `DW_OP_fbreg N, DW_OP_nop...`.
#include <gtest/gtest.h>

#include <regex>

#include "corpus.h"
#include "dwarfdump_text.h"
#include "ptxdwarf/print/dump.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "missing_tool.h"

using namespace ptxdwarf::testsupport;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    out.push_back(text.substr(start, nl - start));
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}


// The value part of a line with numbers (and, on our side, symbols) masked,
// strings left alone: lines that differ only in relocated values match.
std::string masked(const std::string& line, bool ours) {
  static const std::regex depotOurs(R"(DW_OP_addr __local_depot\d+)");
  static const std::regex depotLlvm(R"(DW_OP_fbreg [-+]?\d+(, DW_OP_nop)+)");
  static const std::regex valueOurs(R"((^|[^A-Za-z0-9_$.%])(?!DW_)([A-Za-z_$.%][A-Za-z0-9_$.%]*([+-][A-Za-z0-9_$.%]+)*|0x[0-9a-f]+)(?![A-Za-z0-9_$]))");
  static const std::regex valueLlvm(R"((^|[^A-Za-z0-9_])0x[0-9a-f]+(?![A-Za-z0-9_]))");
  std::string s = std::regex_replace(line, ours ? depotOurs : depotLlvm, "@@");
  size_t paren = s.find("\t(");
  std::string head = paren == std::string::npos ? "" : s.substr(0, paren + 2);
  std::string tail = paren == std::string::npos ? s : s.substr(paren + 2);
  std::string out;
  bool inString = false;
  std::string chunk;
  auto flush = [&] {
    out += inString ? chunk : std::regex_replace(chunk, ours ? valueOurs : valueLlvm, "$1<V>");
    chunk.clear();
  };
  for (char c : tail) {
    if (c == '"') {
      flush();
      out += c;
      inString = !inString;
    } else {
      chunk += c;
    }
  }
  flush();
  return head + out;
}

// Does our line print a symbolic (relocated) value?
bool printsSymbol(const std::string& line) {
  // `(sym)`, `[sym, `, and a location list's `(sym: ` (LLVM 22's `$L__debug_loc0`).
  static const std::regex symbol(R"([(\[, ]([A-Za-z_$.][A-Za-z0-9_$.]*)([+-][0-9]+)?[),\]:])");
  std::string value = line.substr(line.find('(') == std::string::npos ? 0 : line.find('('));
  for (auto it = std::sregex_iterator(value.begin(), value.end(), symbol); it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[1].str();
    if (name.rfind("DW_", 0) != 0 && name.rfind("0x", 0) != 0) return true;
  }
  return value.find("__local_depot") != std::string::npos || value.find(".debug_") != std::string::npos;
}

int selectionCases = 0;  // --name/-c/-p/-r/--show-form runs compared

struct Totals {
  int files = 0, lines = 0, dies = 0, attrs = 0, exact = 0, spelled = 0, relocated = 0;
  ~Totals() {
    if (files)
      std::printf("dump vs llvm-dwarfdump: %d files, %d lines (%d DIE lines, %d attribute lines): %d identical, "
                  "%d differ only in CUDA spelling, %d only in relocated values\n",
                  files, lines, dies, attrs, exact, spelled, relocated);
    if (selectionCases) std::printf("selection options vs llvm-dwarfdump: %d runs agree\n", selectionCases);
  }
} totals;

// Line for line: identical, or different only by the documented extensions.
void expectSameLines(const std::string& ours, const std::string& llvmOut, bool count) {
  std::vector<std::string> a = lines(ours), b = lines(llvmOut);
  ASSERT_EQ(a.size(), b.size()) << "line counts differ";
  static const std::regex dieLine(R"(^0x[0-9a-f]{8}: +(DW_TAG|NULL))");
  static const std::regex attrLine(R"(^ +DW_AT_)");
  if (count) ++totals.files;
  for (size_t i = 1; i < a.size(); ++i) {  // line 0 names the file format
    if (count) {
      ++totals.lines;
      totals.dies += std::regex_search(b[i], dieLine);
      totals.attrs += std::regex_search(b[i], attrLine);
    }
    if (a[i] == b[i]) {
      totals.exact += count;
      continue;
    }
    std::string spelled = llvmSpelling(a[i]);
    if (spelled == b[i]) {
      totals.spelled += count;
      continue;
    }
    bool relocated = printsSymbol(a[i]) && masked(spelled, true) == masked(b[i], false);
    EXPECT_TRUE(relocated) << "line " << i + 1 << "\n  ours: " << a[i] << "\n  llvm: " << b[i];
    totals.relocated += relocated && count;
  }
}

class DumpAgainstLlvm : public testing::TestWithParam<CorpusEntry> {};

TEST_P(DumpAgainstLlvm, EveryLineAgreesOutsideDocumentedExtensions) {
  std::optional<std::string> tool = findTool("llvm-dwarfdump");
  if (!tool) PTXDWARF_MISSING_TOOL("llvm-dwarfdump not found");
  PreparedEntry p = prepare(GetParam());
  if (p.status == PreparedEntry::Status::skipped) GTEST_SKIP() << p.message;
  ASSERT_EQ(p.status, PreparedEntry::Status::ready) << p.message;
  std::string text = *readFile(p.ptxPath);
  ptxdwarf::ptx::ReadResult r = ptxdwarf::ptx::read(text, p.ptxPath);
  ASSERT_TRUE(r.ok());
  ptxdwarf::read::Dwarf dwarf = ptxdwarf::read::decode(r.module.sections);
  std::string ours;
  ptxdwarf::print::dumpText(r.module, dwarf, {true, true, true, true, true, true}, ours);
  CommandResult llvm = runCommand({*tool, "--debug-info", "--debug-abbrev", "--debug-loc", "--debug-aranges",
                                   "--debug-str", "--debug-pubnames", p.cubinPath});
  ASSERT_EQ(llvm.exitCode, 0) << llvm.summary();
  expectSameLines(ours, llvm.out, true);
}

// llvm-dwarfdump's DIE selection options: the same DIEs, in the same shape.
class SelectionAgainstLlvm : public testing::TestWithParam<CorpusEntry> {};

TEST_P(SelectionAgainstLlvm, NameChildrenParentsDepthAndFormsAgree) {
  std::optional<std::string> tool = findTool("llvm-dwarfdump");
  if (!tool) PTXDWARF_MISSING_TOOL("llvm-dwarfdump not found");
  PreparedEntry p = prepare(GetParam());
  if (p.status == PreparedEntry::Status::skipped) GTEST_SKIP() << p.message;
  ASSERT_EQ(p.status, PreparedEntry::Status::ready) << p.message;
  std::string text = *readFile(p.ptxPath);
  ptxdwarf::ptx::ReadResult r = ptxdwarf::ptx::read(text, p.ptxPath);
  ASSERT_TRUE(r.ok());
  ptxdwarf::read::Dwarf dwarf = ptxdwarf::read::decode(r.module.sections);
  if (dwarf.dies.empty()) GTEST_SKIP() << "no .debug_info";
  // Names to select: the first function, parameter and type of the unit.
  auto firstNamed = [&](uint16_t tag) {
    for (const ptxdwarf::read::Die& d : dwarf.dies)
      if (d.tag == tag && !dwarf.name(d).empty()) return std::string(dwarf.name(d));
    return std::string();
  };
  std::string function = firstNamed(ptxdwarf::dw::DW_TAG_subprogram);
  std::string param = firstNamed(ptxdwarf::dw::DW_TAG_formal_parameter);
  std::string type = firstNamed(ptxdwarf::dw::DW_TAG_base_type);
  ASSERT_FALSE(function.empty());
  std::string upper = function;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));

  struct Case {
    std::vector<std::string> args;
    ptxdwarf::print::DumpOptions options;
  };
  auto named = [](std::vector<std::string> names) {
    ptxdwarf::print::DumpOptions o;
    o.names = std::move(names);
    return o;
  };
  std::vector<Case> cases;
  cases.push_back({{"--name=" + function}, named({function})});
  {
    ptxdwarf::print::DumpOptions o = named({function});
    o.showChildren = true;
    cases.push_back({{"--name=" + function, "-c"}, o});
    o.recurseDepth = 1;
    cases.push_back({{"--name=" + function, "-c", "-r", "1"}, o});
  }
  if (!param.empty()) {
    ptxdwarf::print::DumpOptions o = named({param, type});
    o.showParents = true;
    cases.push_back({{"--name=" + param, "--name=" + type, "-p"}, o});
    o.showForm = true;
    o.showChildren = true;
    cases.push_back({{"--name=" + param, "--name=" + type, "-p", "-c", "--show-form"}, o});
  }
  {
    ptxdwarf::print::DumpOptions o = named({upper});
    o.ignoreCase = true;
    cases.push_back({{"--name=" + upper, "--ignore-case"}, o});
    ptxdwarf::print::DumpOptions re = named({"^" + function.substr(0, 2) + ".*[a-z]"});
    re.regex = true;
    cases.push_back({{"--name=" + re.names[0], "--regex"}, re});
    re.ignoreCase = true;
    re.names = {upper.substr(0, 3)};
    cases.push_back({{"--name=" + re.names[0], "--regex", "--ignore-case"}, re});
  }
  {
    ptxdwarf::print::DumpOptions o;
    o.showForm = true;
    cases.push_back({{"--debug-info", "--show-form"}, o});
    ptxdwarf::print::DumpOptions shallow;
    shallow.recurseDepth = 1;
    cases.push_back({{"--debug-info", "-r", "1"}, shallow});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(formatCommand(c.args));
    std::string ours;
    ptxdwarf::print::dumpText(r.module, dwarf, c.options, ours);
    std::vector<std::string> argv = {*tool};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    argv.push_back(p.cubinPath);
    CommandResult llvm = runCommand(argv);
    ASSERT_EQ(llvm.exitCode, 0) << llvm.summary();
    ASSERT_GT(lines(llvm.out).size(), 2u) << "llvm-dwarfdump selected nothing";
    expectSameLines(ours, llvm.out, false);
    ++selectionCases;
  }
}

// One build per program and producer (the options do not depend on the
// target), and Chapter 6: ten llvm-dwarfdump runs each.
std::vector<CorpusEntry> selectionEntries() {
  std::vector<CorpusEntry> out;
  for (const CorpusEntry& e : assembledEntries()) {
    bool fixture = e.producer == Producer::fixture && e.program == "chapter6";
    bool nvcc = e.producer == Producer::nvcc && e.arch == "sm_90";
    if (fixture || nvcc || e.producer == Producer::clang) out.push_back(e);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Corpus, SelectionAgainstLlvm, testing::ValuesIn(selectionEntries()),
                         [](const testing::TestParamInfo<CorpusEntry>& info) { return info.param.id; });

INSTANTIATE_TEST_SUITE_P(Corpus, DumpAgainstLlvm, testing::ValuesIn(assembledEntries()),
                         [](const testing::TestParamInfo<CorpusEntry>& info) { return info.param.id; });

}  // namespace
