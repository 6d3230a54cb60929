// Acceptance (issue 11, item 3): a producer writes a program through the line
// API (write::Program: file table, .loc emitter, labels, assemble) and the
// builder: two source files, an inlined function, a loop. `ptxas -g` accepts
// the module; `llvm-dwarfdump --debug-line` on the cubin has exactly the rows
// the producer asked for, and `llvm-dwarfdump --debug-info` resolves every
// DW_AT_decl_file/DW_AT_call_file to the path the producer meant. The same
// program built through the C API (tests/capi/producer_c.c) gives the same
// text. The program is docs/library.md's "A complete producer" example, kept
// identical to it by ReadmeExampleIsTheTestedCode.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "corpus.h"
#include "missing_tool.h"
#include "dwarfdump_text.h"
#include "ptxdwarf/check/assembled.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/program.h"
#include "tools.h"

using namespace ptxdwarf::testsupport;
namespace fs = std::filesystem;

// README-EXAMPLE-BEGIN (the code between the markers is docs/library.md's example)
#include "producer_example.inc"
// README-EXAMPLE-END

namespace {

constexpr const char* kSaxpy = "/src/saxpy/saxpy.cu";
constexpr const char* kScale = "/src/saxpy/scale.h";

using Row = DumpRow;

// A `.loc` the producer asked for: the position, and the call sites of its
// inline stack, outermost first (empty: not inlined).
struct Request {
  Row pos;
  std::vector<Row> callSites;
};

// What the producer asked for, in order (producer_example.inc's p.loc calls).
std::vector<Request> requestedRows() {
  const std::vector<Row> inScale{{kSaxpy, 5, 12}};
  return {{{kSaxpy, 3, 0}, {}},       {{kSaxpy, 4, 16}, {}},     {{kSaxpy, 4, 33}, {}}, {{kSaxpy, 5, 12}, {}},
          {{kScale, 2, 13}, inScale}, {{kScale, 3, 3}, inScale}, {{kSaxpy, 5, 29}, {}}, {{kSaxpy, 5, 27}, {}},
          {{kSaxpy, 5, 10}, {}},      {{kSaxpy, 4, 40}, {}},     {{kSaxpy, 4, 33}, {}}, {{kSaxpy, 6, 1}, {}}};
}

// The rows `ptxas -g` (CUDA 13.0) writes into .debug_line for these requests,
// as measured on this program and on tests/corpus/producer_program_test's
// call-site module: (1) the column is not kept (0 in every row); (2) a
// request on the line of the row before it adds no row; (3) entering inlined
// code writes a row for the call site of each inline level entered first, even
// on the line of the row before. Every other request is one row, in order.
std::vector<Row> ptxasRows(const std::vector<Request>& requests) {
  std::vector<Row> rows;
  const std::vector<Row>* previous = nullptr;
  auto line = [](const Row& r) { return Row{std::get<0>(r), std::get<1>(r), 0}; };
  for (const Request& r : requests) {
    for (size_t k = 0; k < r.callSites.size(); ++k) {
      bool entered = !previous || k >= previous->size() || (*previous)[k] != r.callSites[k];
      if (entered) rows.push_back(line(r.callSites[k]));
    }
    if (rows.empty() || rows.back() != line(r.pos)) rows.push_back(line(r.pos));
    previous = &r.callSites;
  }
  return rows;
}

// `llvm-dwarfdump --debug-info`: (tag, name, attribute, value) for every
// DW_AT_decl_file and DW_AT_call_file, in DIE order.
std::vector<std::tuple<std::string, std::string, std::string, std::string>> fileAttributes(const std::string& dump) {
  std::vector<std::tuple<std::string, std::string, std::string, std::string>> out;
  static const std::regex dieRe(R"(^0x[0-9a-f]+:\s+(DW_TAG_\w+)$)");
  static const std::regex attrRe(R"(^\s+(DW_AT_\w+)\s+\((.*)\)$)");
  std::istringstream in(dump);
  std::string line, tag, name;
  std::vector<std::pair<std::string, std::string>> files;
  auto flush = [&] {
    for (auto& [attr, value] : files) out.emplace_back(tag, name, attr, value);
    files.clear();
    name.clear();
  };
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, dieRe)) {
      flush();
      tag = m[1];
    } else if (std::regex_match(line, m, attrRe)) {
      std::string value = m[2];
      if (m[1] == "DW_AT_name") name = value;
      if (m[1] == "DW_AT_decl_file" || m[1] == "DW_AT_call_file") files.emplace_back(m[1], value);
    }
  }
  flush();
  return out;
}

struct Checked {
  std::string cubin;
  std::string ptxasErr;
  std::string lineDump, infoDump;
};

// Assembles `ptx` with ptxas -g and dumps the cubin; GTEST_SKIPs in the caller
// when a tool is missing (skip set), fails with a message (error set).
std::optional<Checked> assembleAndDump(const std::string& name, const std::string& ptx, std::string* skip,
                                       std::string* error) {
  std::optional<std::string> ptxas = findTool("ptxas"), dwarfdump = findTool("llvm-dwarfdump");
  if (!ptxas || !dwarfdump) {
    *skip = ptxas ? "llvm-dwarfdump not found" : "ptxas not found";
    return std::nullopt;
  }
  fs::path dir = fs::path(workDir()) / "producer_program";
  std::error_code ec;
  fs::create_directories(dir, ec);
  // Named by process too: ctest runs the tests of a suite in parallel
  // processes, and each one's suite setup assembles the same program.
  const std::string stem = name + "." + std::to_string(getpid());
  std::string ptxPath = (dir / (stem + ".ptx")).string();
  Checked c;
  c.cubin = (dir / (stem + ".cubin")).string();
  if (!writeFile(ptxPath, ptx, error)) return std::nullopt;
  std::vector<std::string> argv{*ptxas, "-arch=sm_80", "-g", ptxPath, "-o", c.cubin};
  CommandResult r = runCommand(argv);
  if (!r.ok()) {
    *error = formatCommand(argv) + " failed: " + r.summary();
    return std::nullopt;
  }
  c.ptxasErr = r.err;
  for (auto [option, out] : {std::pair{"--debug-line", &c.lineDump}, std::pair{"--debug-info", &c.infoDump}}) {
    std::vector<std::string> dump{*dwarfdump, option, c.cubin};
    CommandResult d = runCommand(dump);
    if (!d.ok()) {
      *error = formatCommand(dump) + " failed: " + d.summary();
      return std::nullopt;
    }
    *out = d.out;
  }
  fs::remove(ptxPath, ec);  // what the tests look at is in `c`; a failure leaves the files to look at
  fs::remove(c.cubin, ec);
  return c;
}

void expectRowsAsRequested(const std::string& lineDump) {
  std::string error;
  std::vector<std::vector<Row>> sequences = parseDebugLine(lineDump, &error);
  ASSERT_EQ(error, "");
  ASSERT_EQ(sequences.size(), 1u) << lineDump;  // one function
  std::vector<Row> want = ptxasRows(requestedRows());
  // 3 4 5 (5: the call site, entering scale) 2 3 (in scale.h) 5 4 6
  ASSERT_EQ(want.size(), 9u);
  EXPECT_EQ(sequences[0], want) << lineDump;
}

void expectFilesAsMeant(const std::string& infoDump) {
  using A = std::tuple<std::string, std::string, std::string, std::string>;
  auto q = [](const char* path) { return "\"" + std::string(path) + "\""; };
  std::vector<A> want{
      {"DW_TAG_subprogram", "\"scale\"", "DW_AT_decl_file", q(kScale)},
      {"DW_TAG_formal_parameter", "\"a\"", "DW_AT_decl_file", q(kScale)},
      {"DW_TAG_formal_parameter", "\"v\"", "DW_AT_decl_file", q(kScale)},
      {"DW_TAG_variable", "\"r\"", "DW_AT_decl_file", q(kScale)},
      {"DW_TAG_subprogram", "\"saxpy\"", "DW_AT_decl_file", q(kSaxpy)},
      {"DW_TAG_formal_parameter", "\"n\"", "DW_AT_decl_file", q(kSaxpy)},
      {"DW_TAG_formal_parameter", "\"a\"", "DW_AT_decl_file", q(kSaxpy)},
      {"DW_TAG_formal_parameter", "\"x\"", "DW_AT_decl_file", q(kSaxpy)},
      {"DW_TAG_formal_parameter", "\"y\"", "DW_AT_decl_file", q(kSaxpy)},
      {"DW_TAG_variable", "\"i\"", "DW_AT_decl_file", q(kSaxpy)},
      {"DW_TAG_inlined_subroutine", "", "DW_AT_call_file", q(kSaxpy)},
  };
  EXPECT_EQ(fileAttributes(infoDump), want) << infoDump;
}

std::string readmePath() { return fs::path(PTXDWARF_SOURCE_DIR) / "docs" / "library.md"; }

}  // namespace

class ProducerProgram : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    built_ = buildSaxpy();
    if (!built_.written()) return;
    checked_ = assembleAndDump("saxpy", built_.ptx, &skip_, &error_);
  }
  void SetUp() override {
    ASSERT_TRUE(built_.written()) << (built_.diagnostics.items.empty() ? "" : built_.diagnostics.items[0].message);
  }
  static inline ptxdwarf::write::Assembled built_;
  static inline std::optional<Checked> checked_;
  static inline std::string skip_, error_;
};

// Notes only: they say which convention a field follows (the pubnames
// debug_info_length of the Chapter 6 example, the encoder's default).
TEST_F(ProducerProgram, TheInProcessCheckFindsNoProblem) {
  for (const ptxdwarf::Diagnostic& d : built_.diagnostics.items)
    if (d.severity != ptxdwarf::Severity::note) ADD_FAILURE() << d.format("saxpy.ptx");
}

TEST_F(ProducerProgram, ModuleHasTheFileTableBeforeTheCodeAndSectionsAfter) {
  const std::string& t = built_.ptx;
  EXPECT_TRUE(
      t.starts_with(".version 7.5\n.target sm_80\n.address_size 64\n\n"
                    ".file\t1 \"/src/saxpy/saxpy.cu\"\n.file\t2 \"/src/saxpy/scale.h\"\n\n"
                    ".visible .entry _Z5saxpyifPKfPf("))
      << t.substr(0, 300);
  EXPECT_NE(t.find("\t.loc\t2 2 13, function_name $L__info_string0, inlined_at 1 5 12\n"), std::string::npos);
  EXPECT_LT(t.find("ret;"), t.find(".section\t.debug_info"));
  EXPECT_LT(t.find("ret;"), t.find(".section\t.debug_str"));
  EXPECT_TRUE(t.ends_with("\n"));
}

TEST_F(ProducerProgram, PtxasAcceptsIt) {
  if (!skip_.empty()) PTXDWARF_MISSING_TOOL(skip_);
  ASSERT_EQ(error_, "");
  ASSERT_TRUE(checked_);
  EXPECT_EQ(checked_->ptxasErr, "");
}

TEST_F(ProducerProgram, DebugLineHasExactlyTheRequestedRows) {
  if (!skip_.empty()) PTXDWARF_MISSING_TOOL(skip_);
  ASSERT_EQ(error_, "");
  ASSERT_TRUE(checked_);
  expectRowsAsRequested(checked_->lineDump);
}

TEST_F(ProducerProgram, EveryDeclFileNamesTheRightPath) {
  if (!skip_.empty()) PTXDWARF_MISSING_TOOL(skip_);
  ASSERT_EQ(error_, "");
  ASSERT_TRUE(checked_);
  expectFilesAsMeant(checked_->infoDump);
}

// tests/capi/producer_c.c builds the same program through the C API: the same
// text, and ptxas/llvm-dwarfdump see the same rows and files in its cubin.
TEST_F(ProducerProgram, TheCApiBuildsTheSameModule) {
  fs::path out = fs::path(workDir()) / "producer_program" / "saxpy_c.ptx";
  std::error_code ec;
  fs::create_directories(out.parent_path(), ec);
  CommandResult r = runCommand({PTXDWARF_CAPI_PRODUCER, out.string()});
  ASSERT_TRUE(r.ok()) << r.summary() << r.out;
  std::optional<std::string> text = readFile(out.string());
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, built_.ptx);
  std::string skip, error;
  std::optional<Checked> c = assembleAndDump("saxpy_c", *text, &skip, &error);
  if (!skip.empty()) PTXDWARF_MISSING_TOOL(skip);
  ASSERT_EQ(error, "");
  expectRowsAsRequested(c->lineDump);
  expectFilesAsMeant(c->infoDump);
}

// The emitter's guarantee, against ptxas: call sites that no .loc of the
// producer used (two levels of inlining, in two functions) are written before
// the inlined code, and ptxas accepts the module; the same module without
// those lines is what ptxas rejects.
TEST(ProducerCallSites, PtxasAcceptsWhatTheEmitterWritesAndRejectsItWithoutTheCallSites) {
  using namespace ptxdwarf::write;
  Program p;
  unsigned main = p.files().add("/src/cs/main.cu"), lib = p.files().add("/src/cs/lib.h");
  std::vector<InlinedCall> stack{{"_Z5outerv", {main, 10, 3}}, {"_Z5innerv", {lib, 21, 7}}};
  p.code() += ".visible .global .align 4 .u32 sink;\n";  // a store keeps ptxas from dropping the code
  for (const char* f : {"k0", "k1"}) {
    p.code() += std::string(".visible .entry ") + f + "()\n{\n\t.reg .b32 %r<3>;\n";
    p.beginFunction();
    p.loc({main, 9, 1});
    p.code() += "\tmov.u32 %r2, %ctaid.x;\n";
    p.loc({lib, 5, 1}, stack);
    p.code() += "\tadd.u32 %r1, %r2, 7;\n";
    p.loc({main, 12, 1});
    p.code() += "\tst.global.u32 [sink], %r1;\n\tret;\n";
    p.endFunction();
    p.code() += "}\n";
  }
  Assembled m = ptxdwarf::check::assembleAndCheck(p, nullptr);
  ASSERT_TRUE(m.written());
  for (const ptxdwarf::Diagnostic& d : m.diagnostics.items)
    if (d.severity != ptxdwarf::Severity::note) ADD_FAILURE() << d.format("callsites.ptx");
  // Per function: both call sites, then the code.
  size_t first = m.ptx.find(
      "\t.loc\t1 10 3\n\t.loc\t2 21 7, function_name $L__info_string0, inlined_at 1 10 3\n"
      "\t.loc\t2 5 1, function_name $L__info_string1, inlined_at 2 21 7\n");
  ASSERT_NE(first, std::string::npos) << m.ptx;
  std::string skip, error;
  std::optional<Checked> c = assembleAndDump("callsites", m.ptx, &skip, &error);
  if (!skip.empty()) PTXDWARF_MISSING_TOOL(skip);
  ASSERT_EQ(error, "");
  std::vector<std::vector<Row>> sequences = parseDebugLine(c->lineDump, &error);
  ASSERT_EQ(error, "");
  const Row outerCall{"/src/cs/main.cu", 10, 3}, innerCall{"/src/cs/lib.h", 21, 7};
  std::vector<Row> each = ptxasRows({{{"/src/cs/main.cu", 9, 1}, {}},
                                     {{"/src/cs/lib.h", 5, 1}, {outerCall, innerCall}},
                                     {{"/src/cs/main.cu", 12, 1}, {}}});
  EXPECT_EQ(each, (std::vector<Row>{{"/src/cs/main.cu", 9, 0},
                                    {"/src/cs/main.cu", 10, 0},
                                    {"/src/cs/lib.h", 21, 0},
                                    {"/src/cs/lib.h", 5, 0},
                                    {"/src/cs/main.cu", 12, 0}}));
  EXPECT_EQ(sequences, (std::vector<std::vector<Row>>{each, each})) << c->lineDump;

  // Without the call-site lines ptxas refuses the module.
  std::string broken = m.ptx;
  for (const char* line : {"\t.loc\t1 10 3\n", "\t.loc\t2 21 7, function_name $L__info_string0, inlined_at 1 10 3\n"})
    for (size_t at; (at = broken.find(line)) != std::string::npos;) broken.erase(at, std::string_view(line).size());
  fs::path path = fs::path(workDir()) / "producer_program" / "callsites_broken.ptx";
  ASSERT_TRUE(writeFile(path.string(), broken, &error)) << error;
  CommandResult r = runCommand({*findTool("ptxas"), "-arch=sm_80", "-g", path.string(), "-o",
                                (path.parent_path() / "callsites_broken.cubin").string()});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.err.find("used in inlined_at directive must be used in a preceding .loc directive"), std::string::npos)
      << r.err;
}

// docs/library.md's "A complete producer" example is producer_example.inc, byte for byte.
TEST(ProducerReadme, ReadmeExampleIsTheTestedCode) {
  std::optional<std::string> readme = readFile(readmePath());
  ASSERT_TRUE(readme);
  std::optional<std::string> example =
      readFile((fs::path(PTXDWARF_SOURCE_DIR) / "tests" / "corpus" / "producer_example.inc").string());
  ASSERT_TRUE(example);
  const std::string begin = "<!-- example: tests/corpus/producer_example.inc -->\n```cpp\n";
  size_t at = readme->find(begin);
  ASSERT_NE(at, std::string::npos) << "docs/library.md lacks the marked example";
  at += begin.size();
  size_t end = readme->find("```\n", at);
  ASSERT_NE(end, std::string::npos);
  // The document's block: the includes the example needs, then the example itself.
  std::string block = readme->substr(at, end - at);
  const std::string includes =
      "#include <ptxdwarf/check/assembled.h>\n#include <ptxdwarf/write/builder.h>\n#include <ptxdwarf/write/program.h>\n\n";
  ASSERT_TRUE(block.starts_with(includes)) << block.substr(0, 200);
  EXPECT_EQ(block.substr(includes.size()), *example);
}

// Below .version 7.2 (no function_name/inlined_at) the producer asks for
// flattened stacks: inlined code keeps its own lines, without call-site rows,
// and ptxas accepts the module; without the request the emitter refuses.
TEST(ProducerCallSites, FlattenedStacksBelowVersion72AssembleWithTheInnermostLines) {
  using namespace ptxdwarf::write;
  std::vector<InlinedCall> stack{{"_Z5outerv", {1, 10, 3}}};
  {
    Program strict({.version = {7, 1, true}});
    strict.files().add("/src/flat/main.cu");
    EXPECT_THROW(strict.loc({1, 5, 1}, stack), BuildError);
  }
  Program p({.version = {7, 1, true}, .flattenInlined = true});
  unsigned main = p.files().add("/src/flat/main.cu");
  p.files().add("/src/flat/lib.h");
  p.code() += ".visible .global .align 4 .u32 sink;\n.visible .entry k()\n{\n\t.reg .b32 %r<3>;\n";
  p.beginFunction();
  p.loc({main, 9, 1});
  p.code() += "\tmov.u32 %r2, %ctaid.x;\n";
  p.loc({2, 5, 1}, stack);
  p.code() += "\tadd.u32 %r1, %r2, 7;\n";
  p.loc({main, 12, 1});
  p.code() += "\tst.global.u32 [sink], %r1;\n\tret;\n";
  p.endFunction();
  p.code() += "}\n";
  Assembled m = ptxdwarf::check::assembleAndCheck(p, nullptr);
  ASSERT_TRUE(m.written());
  EXPECT_EQ(m.ptx.find("function_name"), std::string::npos);
  EXPECT_EQ(m.ptx.find(".debug_str"), std::string::npos);
  std::string skip, error;
  std::optional<Checked> c = assembleAndDump("flattened", m.ptx, &skip, &error);
  if (!skip.empty()) PTXDWARF_MISSING_TOOL(skip);
  ASSERT_EQ(error, "");
  // A line table alone: ptxas -g only warns that .debug_info/.debug_abbrev are missing.
  EXPECT_EQ(c->ptxasErr.find("error"), std::string::npos) << c->ptxasErr;
  std::vector<std::vector<Row>> sequences = parseDebugLine(c->lineDump, &error);
  ASSERT_EQ(error, "");
  EXPECT_EQ(sequences, (std::vector<std::vector<Row>>{
                           {{"/src/flat/main.cu", 9, 0}, {"/src/flat/lib.h", 5, 0}, {"/src/flat/main.cu", 12, 0}}}))
      << c->lineDump;
}
