// Acceptance for `ptxdump annotate` (write::annotate) on PTX without debug
// information: the Chapter 6 example with its debug sections and .file/.loc
// removed, a DSL-style kernel (fixtures/annotate/dsl.ptx: long register names,
// a `{ }` register block), and `nvcc -O3` output (the corpus programs and a
// CUB/cooperative-groups/libcu++ program, fixtures/annotate/cccl.cu), compiled
// at test time. For each: `ptxas -g` accepts the annotated file and makes the
// same `.text` sections as from the input; `llvm-dwarfdump --debug-line` names
// the input in every row, on a line of the input holding an instruction, and
// covers at least 90% of those lines; `--debug-info` has a register-space
// variable per register whose name fits 8 bytes and a formal parameter per
// parameter; `check` finds no errors in it.
#include "ptxdwarf/write/annotate.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "corpus.h"
#include "dwarfdump_text.h"
#include "elf.h"
#include "ptxdwarf/check/check.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "tools.h"
#include "missing_tool.h"

using namespace ptxdwarf;
using namespace ptxdwarf::testsupport;
namespace fs = std::filesystem;

namespace {

fs::path workPath() {
  fs::path dir = fs::path(workDir()) / "annotate";
  std::error_code ec;
  fs::create_directories(dir, ec);
  return dir;
}

// The Chapter 6 example as hand-written PTX without debug information: its
// `.section` blocks and `.file`/`.loc` lines removed (it keeps `.target sm_20, debug`).
std::string strippedChapter6(std::string* error) {
  std::string text = readFixture("chapter6.ptx");
  ptx::ReadResult r = ptx::read(text, "chapter6.ptx");
  if (text.empty() || !r.ok()) {
    *error = "cannot read fixtures/chapter6.ptx";
    return {};
  }
  std::vector<std::pair<uint64_t, uint64_t>> cut;  // byte ranges to drop
  for (const SectionImage& s : r.module.sections)
    for (const TextRange& b : s.blocks) cut.emplace_back(b.begin, b.end);
  std::set<uint32_t> lines;
  for (const ptx::FileEntry& f : r.module.files) lines.insert(f.loc.line);
  for (const ptx::LocRecord& l : r.module.locs) lines.insert(l.loc.line);
  uint32_t line = 1;
  for (size_t pos = 0; pos < text.size(); ++line) {
    size_t end = text.find('\n', pos);
    end = end == std::string::npos ? text.size() : end + 1;
    if (lines.count(line)) cut.emplace_back(pos, end);
    pos = end;
  }
  std::sort(cut.begin(), cut.end());
  std::string out;
  uint64_t at = 0;
  for (auto [b, e] : cut) {
    if (b > at) out.append(text, at, b - at);
    at = std::max(at, e);
  }
  out.append(text, at, std::string::npos);
  return out;
}

// `nvcc -O3 -ptx` of a .cu file (cached by the file's name in the work dir).
std::string nvccO3(const fs::path& source, std::string* skip, std::string* error, bool lineinfo = false) {
  std::optional<std::string> nvcc = findTool("nvcc");
  if (!nvcc) {
    *skip = "nvcc not found";
    return {};
  }
  fs::path out = workPath() / (source.stem().string() + (lineinfo ? "_lineinfo_O3.ptx" : "_O3.ptx"));
  std::vector<std::string> argv{*nvcc, "-O3", "-ptx", "-arch=sm_80"};
  if (lineinfo) argv.push_back("-lineinfo");
  argv.insert(argv.end(),
              {"-I" + (fs::path(fixturesDir()) / "corpus" / "include").string(), source.string(), "-o", out.string()});
  CommandResult r = runCommand(argv);
  if (!r.ok()) {
    *error = formatCommand(argv) + ": " + r.summary();
    return {};
  }
  std::optional<std::string> text = readFile(out.string());
  if (!text) *error = "cannot read " + out.string();
  return text.value_or("");
}

// The annotated text with only its `.file`/`.loc` lines added to the input:
// annotate's labels, `, debug` and sections taken out again.
std::string linesOnly(const std::string& annotated) {
  std::string out;
  for (size_t pos = 0; pos < annotated.size();) {
    size_t end = annotated.find('\n', pos);
    end = end == std::string::npos ? annotated.size() : end + 1;
    std::string_view line(annotated.data() + pos, end - pos);
    if (line == "\t.section\t.debug_info\n") break;  // the sections, after the input
    if (!line.starts_with("$__ptxdwarf")) out.append(line);
    pos = end;
  }
  if (size_t debug = out.find(", debug"); debug != std::string::npos) out.erase(debug, 7);
  return out;
}

struct Input {
  std::string name;
  std::string kind;  // chapter6, dsl, cccl, or a corpus program's name
};

std::vector<Input> inputs() {
  std::vector<Input> in{{"chapter6_stripped", "chapter6"}, {"dsl", "dsl"}, {"cccl_O3", "cccl"}};
  for (const char* program : {"calls_inline", "classes", "constant_mem", "locals", "loclists", "printf_loops",
                              "shared_mem", "structs", "templates"})
    in.push_back({std::string(program) + "_O3", program});
  return in;
}

// Registers a debugger can be shown (cuda-gdb: '%' and at most 8 bytes), and parameters.
size_t packableRegisters(const ptx::Module& m) {
  size_t n = 0;
  for (const ptx::Function& f : m.functions) {
    if (!f.hasBody) continue;
    for (const ptx::RegisterDecl& r : m.registersOf(f)) {
      if (!r.isRange()) {
        n += r.name.starts_with("%") && r.name.size() <= 8;
        continue;
      }
      for (uint32_t k = 0; k < r.count; ++k) n += r.name.size() + std::to_string(k).size() <= 8;
    }
  }
  return n;
}

size_t allRegisters(const ptx::Module& m) {
  size_t n = 0;
  for (const ptx::Function& f : m.functions)
    if (f.hasBody)
      for (const ptx::RegisterDecl& r : m.registersOf(f)) n += r.isRange() ? r.count : 1;
  return n;
}

size_t parameters(const ptx::Module& m) {
  size_t n = 0;
  for (const ptx::Function& f : m.functions)
    if (f.hasBody) n += m.paramsOf(f).size();
  return n;
}

// `llvm-dwarfdump --debug-info`: variables with a DW_OP_regx location in
// register space, and formal parameters.
std::pair<size_t, size_t> countDies(const std::string& dump) {
  size_t registers = 0, params = 0;
  std::string tag;
  bool regx = false, regSpace = false;
  auto flush = [&] {
    if (tag == "DW_TAG_variable" && regx && regSpace) ++registers;
    if (tag == "DW_TAG_formal_parameter") ++params;
    regx = regSpace = false;
  };
  static const std::regex dieRe(R"(^0x[0-9a-f]+:\s+(DW_TAG_\w+)$)");
  std::istringstream in(dump);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, dieRe)) {
      flush();
      tag = m[1];
    } else if (line.find("DW_AT_location") != std::string::npos && line.find("DW_OP_regx") != std::string::npos) {
      regx = true;
    } else if (line.find("DW_AT_address_class") != std::string::npos && line.find("(0x02)") != std::string::npos) {
      regSpace = true;
    }
  }
  flush();
  return {registers, params};
}

}  // namespace

class Annotate : public testing::TestWithParam<Input> {};

TEST_P(Annotate, PtxasAndLlvmSeeTheInputAsTheSource) {
  const Input& input = GetParam();
  std::optional<std::string> ptxas = findTool("ptxas"), dwarfdump = findTool("llvm-dwarfdump");
  if (!ptxas) PTXDWARF_MISSING_TOOL("ptxas not found");
  if (!dwarfdump) PTXDWARF_MISSING_TOOL("llvm-dwarfdump not found");
  std::string skip, error, text;
  if (input.kind == "chapter6") {
    text = strippedChapter6(&error);
  } else if (input.kind == "dsl") {
    text = readFixture("annotate/dsl.ptx");
  } else if (input.kind == "cccl") {
    text = nvccO3(fs::path(fixturesDir()) / "annotate" / "cccl.cu", &skip, &error);
  } else {
    text = nvccO3(fs::path(fixturesDir()) / "corpus" / (input.kind + ".cu"), &skip, &error);
  }
  if (!skip.empty()) PTXDWARF_MISSING_TOOL(skip);
  ASSERT_EQ(error, "");
  ASSERT_FALSE(text.empty());

  const fs::path dir = workPath();
  const std::string inPath = (dir / (input.name + ".ptx")).string();
  const std::string outPath = (dir / (input.name + ".annotated.ptx")).string();
  ASSERT_TRUE(writeFile(inPath, text, &error)) << error;
  ptx::ReadResult in = ptx::read(text, inPath);
  ASSERT_TRUE(in.ok());
  write::Annotated a = write::annotate(text, in.module, {.sourceName = inPath});
  ASSERT_TRUE(a.written()) << (a.diagnostics.items.empty() ? "" : a.diagnostics.items[0].format(inPath));
  ASSERT_TRUE(writeFile(outPath, a.ptx, &error)) << error;

  // ptxas accepts it. The input itself is assembled as the baseline (without a
  // `.target debug`, which ptxas refuses in a file without debug information),
  // and so is the input with only the `.file`/`.loc` lines added: its code is
  // the input's, byte for byte. (The labels and the DWARF do change what ptxas
  // -g makes: it compiles a file with debug information for the debugger.)
  const std::string arch = input.kind == "chapter6" ? "sm_75" : "sm_80";
  std::string baseline = text;
  if (size_t debug = baseline.find(", debug"); in.module.debug && debug != std::string::npos) baseline.erase(debug, 7);
  const std::string basePath = (dir / (input.name + ".baseline.ptx")).string();
  const std::string linesPath = (dir / (input.name + ".lines.ptx")).string();
  ASSERT_TRUE(writeFile(basePath, baseline, &error)) << error;
  ASSERT_TRUE(writeFile(linesPath, linesOnly(a.ptx), &error)) << error;
  std::map<std::string, std::vector<uint8_t>> elf[3];
  std::string stderrs[3];
  const std::string paths[3] = {basePath, linesPath, outPath};
  for (int k = 0; k < 3; ++k) {
    std::string cubin = paths[k] + ".cubin";
    std::vector<std::string> argv{*ptxas, "-arch=" + arch, "-g", paths[k], "-o", cubin};
    CommandResult r = runCommand(argv);
    ASSERT_TRUE(r.ok()) << formatCommand(argv) << ": " << r.summary();
    stderrs[k] = r.err;
    std::optional<std::map<std::string, std::vector<uint8_t>>> sections = readElfSections(cubin, &error);
    ASSERT_TRUE(sections) << error;
    elf[k] = std::move(*sections);
  }
  // What ptxas says about the annotated file it says about the input too.
  std::istringstream said(stderrs[2]);
  for (std::string line; std::getline(said, line);)
    EXPECT_NE(stderrs[0].find(line), std::string::npos) << "ptxas on the annotated file only: " << line;
  size_t texts = 0, inputText = 0, annotatedText = 0;
  for (const auto& [name, bytes] : elf[0]) {
    if (!name.starts_with(".text.")) continue;
    ++texts;
    inputText += bytes.size();
    ASSERT_TRUE(elf[1].count(name) && elf[2].count(name)) << name;
    EXPECT_TRUE(elf[1].at(name) == bytes) << name << ": the .file/.loc lines changed the code";
    annotatedText += elf[2].at(name).size();
  }
  EXPECT_GT(texts, 0u);

  // Every row names the input, on a line holding an instruction; rows cover the instruction lines.
  std::set<uint32_t> instructionLines;
  for (const ptx::Instruction& i : in.module.instructions) instructionLines.insert(i.line);
  CommandResult lineDump = runCommand({*dwarfdump, "--debug-line", outPath + ".cubin"});
  ASSERT_TRUE(lineDump.ok()) << lineDump.summary();
  std::vector<std::vector<DumpRow>> sequences = parseDebugLine(lineDump.out, &error);
  ASSERT_EQ(error, "");
  std::set<uint32_t> covered;
  size_t rows = 0;
  for (const std::vector<DumpRow>& s : sequences)
    for (const DumpRow& row : s) {
      ++rows;
      EXPECT_EQ(std::get<0>(row), inPath);
      EXPECT_TRUE(instructionLines.count(std::get<1>(row))) << "row on line " << std::get<1>(row);
      covered.insert(std::get<1>(row));
    }
  EXPECT_GE(covered.size() * 10, instructionLines.size() * 9)
      << covered.size() << " of " << instructionLines.size() << " instruction lines";

  // A variable per packable register, a formal parameter per parameter.
  CommandResult infoDump = runCommand({*dwarfdump, "--debug-info", outPath + ".cubin"});
  ASSERT_TRUE(infoDump.ok()) << infoDump.summary();
  auto [registerVariables, formalParameters] = countDies(infoDump.out);
  EXPECT_EQ(registerVariables, packableRegisters(in.module));
  EXPECT_EQ(formalParameters, parameters(in.module));
  EXPECT_EQ(a.stats.registerVariables, registerVariables);

  // check finds no errors in it.
  ptx::ReadResult out = ptx::read(a.ptx, outPath);
  ASSERT_TRUE(out.ok());
  read::Dwarf dwarf = read::decode(out.module.sections);
  for (const Diagnostic& d : check::run(out.module, dwarf).items)
    if (d.severity == Severity::error) ADD_FAILURE() << d.format(outPath);

  // --rename-registers: every register gets a variable, and the renamed code
  // (with its .file/.loc lines) assembles to the input's code byte for byte.
  write::Annotated renamed = write::annotate(text, in.module, {.sourceName = inPath, .renameRegisters = true});
  ASSERT_TRUE(renamed.written());
  EXPECT_EQ(renamed.stats.skippedRegisters, 0u);
  const std::string renamedPath = (dir / (input.name + ".renamed.ptx")).string();
  const std::string renamedLines = (dir / (input.name + ".renamed.lines.ptx")).string();
  ASSERT_TRUE(writeFile(renamedPath, renamed.ptx, &error)) << error;
  ASSERT_TRUE(writeFile(renamedLines, linesOnly(renamed.ptx), &error)) << error;
  for (const std::string& path : {renamedPath, renamedLines}) {
    std::vector<std::string> argv{*ptxas, "-arch=" + arch, "-g", path, "-o", path + ".cubin"};
    CommandResult r = runCommand(argv);
    ASSERT_TRUE(r.ok()) << formatCommand(argv) << ": " << r.summary();
  }
  std::optional<std::map<std::string, std::vector<uint8_t>>> renamedElf =
      readElfSections(renamedLines + ".cubin", &error);
  ASSERT_TRUE(renamedElf) << error;
  for (const auto& [name, bytes] : elf[0])
    if (name.starts_with(".text.")) {
      EXPECT_TRUE(renamedElf->count(name) && renamedElf->at(name) == bytes) << name << ": renaming changed the code";
    }
  CommandResult renamedInfo = runCommand({*dwarfdump, "--debug-info", renamedPath + ".cubin"});
  ASSERT_TRUE(renamedInfo.ok());
  EXPECT_EQ(countDies(renamedInfo.out).first, allRegisters(in.module));

  std::printf(
      "[ annotate ] %s: %zu instruction lines, %zu covered by %zu rows; %zu register variables (%zu "
      "skipped, %zu renamed), %zu parameters, %zu subprograms; .text %zu bytes from the input, %zu annotated\n",
      input.name.c_str(), instructionLines.size(), covered.size(), rows, registerVariables, a.stats.skippedRegisters,
      renamed.stats.renamedRegisters, formalParameters, a.stats.subprograms, inputText, annotatedText);
}

INSTANTIATE_TEST_SUITE_P(Inputs, Annotate, testing::ValuesIn(inputs()),
                         [](const testing::TestParamInfo<Input>& i) { return i.param.name; });

// --keep-lines on `nvcc -lineinfo -O3` output (inlined_at, function_name and
// its .debug_str included): the line table stays the producer's, the DWARF
// adds the subprograms, parameters and registers; ptxas -g accepts it and
// llvm-dwarfdump finds them in the cubin.
TEST(AnnotateKeepLines, LineinfoBuildsGetTheirVariables) {
  std::optional<std::string> ptxas = findTool("ptxas"), dwarfdump = findTool("llvm-dwarfdump");
  if (!ptxas || !dwarfdump) PTXDWARF_MISSING_TOOL("ptxas or llvm-dwarfdump not found");
  for (const fs::path& source :
       {fs::path(fixturesDir()) / "corpus" / "calls_inline.cu", fs::path(fixturesDir()) / "annotate" / "cccl.cu"}) {
    SCOPED_TRACE(source.string());
    std::string skip, error;
    std::string text = nvccO3(source, &skip, &error, /*lineinfo=*/true);
    if (!skip.empty()) PTXDWARF_MISSING_TOOL(skip);
    ASSERT_EQ(error, "");
    ptx::ReadResult in = ptx::read(text, source.string());
    ASSERT_TRUE(in.ok());
    ASSERT_FALSE(in.module.locs.empty());
    EXPECT_FALSE(write::annotate(text, in.module).written());  // refused without --keep-lines
    write::Annotated a = write::annotate(text, in.module, {.keepLines = true});
    ASSERT_TRUE(a.written());
    EXPECT_EQ(a.stats.locs, 0u);
    ptx::ReadResult out = ptx::read(a.ptx, "out.ptx");
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(out.module.locs.size(), in.module.locs.size());
    EXPECT_EQ(out.module.files.size(), in.module.files.size());
    read::Dwarf dwarf = read::decode(out.module.sections);
    for (const Diagnostic& d : check::run(out.module, dwarf).items)
      if (d.severity == Severity::error) ADD_FAILURE() << d.format("out.ptx");

    std::string path = (workPath() / (source.stem().string() + "_lineinfo.annotated.ptx")).string();
    ASSERT_TRUE(writeFile(path, a.ptx, &error)) << error;
    std::vector<std::string> argv{*ptxas, "-arch=sm_80", "-g", path, "-o", path + ".cubin"};
    CommandResult r = runCommand(argv);
    ASSERT_TRUE(r.ok()) << formatCommand(argv) << ": " << r.summary();
    CommandResult infoDump = runCommand({*dwarfdump, "--debug-info", path + ".cubin"});
    ASSERT_TRUE(infoDump.ok());
    auto [registerVariables, formalParameters] = countDies(infoDump.out);
    EXPECT_EQ(registerVariables, packableRegisters(in.module));
    EXPECT_EQ(formalParameters, parameters(in.module));
    std::printf("[ annotate --keep-lines ] %s: %zu .loc kept, %zu register variables, %zu parameters\n",
                source.filename().c_str(), out.module.locs.size(), registerVariables, formalParameters);
  }
}
