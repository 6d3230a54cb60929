// `ptxdump diff` compares line tables: `.file` paths and `.loc` rows by code
// position, with their inline stacks. Generated pairs that differ in one
// thing each (a line, a column, a path, an inline stack, a row more), pairs
// that differ only where the line table does not look (code moved down the
// file, `.file` renumbered), and real nvcc -lineinfo output of a source
// changed by one line.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/program.h"
#include "tools.h"
#include "missing_tool.h"

using namespace ptxdwarf::testsupport;

namespace {

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ptxdump_linediff_" + std::to_string(getpid()) + "_" + name))
      .string();
}

struct TempFile {
  std::string path;
  TempFile(const std::string& name, const std::string& text) : path(tempPath(name)) {
    EXPECT_TRUE(writeFile(path, text)) << path;
  }
  ~TempFile() { std::filesystem::remove(path); }
};

// What one generated module's line table says; each test changes one field.
struct Lines {
  std::string mainPath = "/src/k.cu";
  std::string headerPath = "/src/k.h";
  unsigned bodyLine = 3, bodyColumn = 5;
  std::string inlinedFunction = "_Z3addii";
  unsigned callLine = 4;
  bool extraRow = false;
  bool headerFirst = false;     // `.file` numbers swapped, the same paths
  std::string codePrefix = "";  // text before the kernel (moves its PTX lines)
  bool withDwarf = false;       // -G like: a unit too (else -lineinfo like: line table only)
};

// A -lineinfo-like module (no DWARF): `rows` instructions with a location
// each, one of them inlined from the header.
std::string lineModule(const Lines& l) {
  using namespace ptxdwarf;
  using namespace ptxdwarf::write;
  Program p({.version = {7, 5, true}, .target = "sm_80"});
  unsigned header = 0, main = 0;
  if (l.headerFirst) header = p.files().add(l.headerPath);
  main = p.files().add(l.mainPath);
  if (!l.headerFirst) header = p.files().add(l.headerPath);
  p.code() += l.codePrefix;
  p.code() += ".visible .entry _Z1kPi(\n\t.param .u64 _Z1kPi_param_0)\n{\n\t.reg .b32 %r<4>;\n";
  Labels::Function fn = p.beginFunction();
  p.loc({main, 2, 1});
  p.code() += "\tmov.u32 %r1, 1;\n";
  p.loc({main, l.bodyLine, l.bodyColumn});
  p.code() += "\tadd.u32 %r2, %r1, 1;\n";
  const std::vector<InlinedCall> inlined{{l.inlinedFunction, {main, l.callLine, 9}}};
  p.loc({header, 7, 3}, inlined);
  p.code() += "\tadd.u32 %r3, %r2, %r1;\n";
  if (l.extraRow) p.loc({main, 5, 2});
  p.code() += "\tmov.u32 %r1, %r3;\n";
  p.loc({main, 6, 1});
  p.code() += "\tret;\n";
  p.endFunction();
  p.code() += "}\n";
  if (!l.withDwarf) return p.assemble(std::span<const Unit* const>{}, {}).ptx;
  Builder b;
  b.compileUnit({.producer = "test", .name = "k.cu", .compDir = "/src"});
  b.subprogram({.name = "k", .linkageName = "_Z1kPi", .declFile = main, .declLine = 1, .lowPc = SymbolRef{fn.begin},
                .highPc = SymbolRef{fn.end}});
  return p.assemble(&b.unit(), {}).ptx;
}

CommandResult diff(const Lines& a, const Lines& b) {
  TempFile fa("a.ptx", lineModule(a)), fb("b.ptx", lineModule(b));
  return runCommand({PTXDUMP_EXE, "diff", fa.path, fb.path});
}

TEST(LineTableDiff, EqualTablesAreEqual) {
  for (bool withDwarf : {false, true}) {
    CommandResult r = diff({.withDwarf = withDwarf}, {.withDwarf = withDwarf});
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_EQ(r.out, "0 DIEs changed, 0 added, 0 removed\n");
  }
}

// Where the line table does not look: the PTX lines of the code, the numbers of the `.file`s.
TEST(LineTableDiff, MovedCodeAndRenumberedFilesAreEqual) {
  CommandResult moved = diff({}, {.codePrefix = "// a comment\n.global .u32 g;\n\n"});
  EXPECT_EQ(moved.exitCode, 0) << moved.out << moved.err;
  CommandResult renumbered = diff({}, {.headerFirst = true});
  EXPECT_EQ(renumbered.exitCode, 0) << renumbered.out << renumbered.err;
}

TEST(LineTableDiff, EachDifferenceIsOneRowOrPath) {
  struct Case {
    const char* what;
    Lines after;
    std::string expected;
    std::string entries = "1 line-table entry";
  };
  // The program writes an inlined location's call site as a row of its own
  // first (ptxas needs it), at the same code position: `+2` and `+2#1`.
  const std::vector<Case> cases = {
      {"a .loc line", {.bodyLine = 30}, "~ line _Z1kPi+1: /src/k.cu:3:5 -> /src/k.cu:30:5\n"},
      {"a .loc column", {.bodyColumn = 6}, "~ line _Z1kPi+1: /src/k.cu:3:5 -> /src/k.cu:3:6\n"},
      {"an inlined function",
       {.inlinedFunction = "_Z3subii"},
       "~ line _Z1kPi+2#1: /src/k.h:7:3 inlined: add(int, int) at /src/k.cu:4:9 -> /src/k.h:7:3 inlined: sub(int, int) "
       "at /src/k.cu:4:9\n"},
      {"a call site",
       {.callLine = 40},
       "~ line _Z1kPi+2: /src/k.cu:4:9 -> /src/k.cu:40:9\n"
       "~ line _Z1kPi+2#1: /src/k.h:7:3 inlined: add(int, int) at /src/k.cu:4:9 -> /src/k.h:7:3 inlined: add(int, int) "
       "at /src/k.cu:40:9\n",
       "2 line-table entries"},
      {"a row more", {.extraRow = true}, "+ line _Z1kPi+3: /src/k.cu:5:2\n"},
  };
  for (const Case& c : cases) {
    for (bool withDwarf : {false, true}) {
      SCOPED_TRACE(std::string(c.what) + (withDwarf ? " (with DWARF)" : " (-lineinfo)"));
      Lines after = c.after;
      after.withDwarf = withDwarf;
      CommandResult r = diff({.withDwarf = withDwarf}, after);
      EXPECT_EQ(r.exitCode, 1) << r.err;
      EXPECT_EQ(r.out, c.expected + "0 DIEs changed, 0 added, 0 removed, " + c.entries + " different\n");
      CommandResult back = diff(after, {.withDwarf = withDwarf});  // the other way round
      EXPECT_EQ(back.exitCode, 1) << back.err;
    }
  }
}

TEST(LineTableDiff, APathChangedIsAFileAndItsRows) {
  CommandResult r = diff({}, {.headerPath = "/src/k2.h"});
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_EQ(r.out,
            "- file \"/src/k.h\"\n"
            "+ file \"/src/k2.h\"\n"
            "~ line _Z1kPi+2#1: /src/k.h:7:3 inlined: add(int, int) at /src/k.cu:4:9 -> /src/k2.h:7:3 inlined: add(int, "
            "int) at /src/k.cu:4:9\n"
            "0 DIEs changed, 0 added, 0 removed, 3 line-table entries different\n");
}

// Real -lineinfo output: one source line added inside the kernel moves the
// rows after it; the same source compiled twice is equal.
TEST(LineTableDiff, NvccLineinfoOutputDifferingInOneLine) {
  std::optional<std::string> nvcc = findTool("nvcc");
  if (!nvcc) PTXDWARF_MISSING_TOOL("nvcc not found");
  const std::filesystem::path dir = tempPath("nvcc");
  std::filesystem::create_directories(dir);
  const std::string source = (dir / "k.cu").string();
  const std::string before =
      "__global__ void k(int* p) {\n"
      "  int i = threadIdx.x;\n"
      "  p[i] = i * 2;\n"
      "}\n";
  const std::string after =
      "__global__ void k(int* p) {\n"
      "  int i = threadIdx.x;\n"
      "\n"
      "  p[i] = i * 2;\n"
      "}\n";
  auto compile = [&](const std::string& text, const std::string& out) {
    ASSERT_TRUE(writeFile(source, text));
    CommandResult r = runCommand({*nvcc, "-lineinfo", "--ptx", "-arch=sm_80", source, "-o", (dir / out).string()});
    ASSERT_TRUE(r.ok()) << r.summary();
  };
  compile(before, "a.ptx");
  compile(before, "a2.ptx");
  compile(after, "b.ptx");
  CommandResult same = runCommand({PTXDUMP_EXE, "diff", (dir / "a.ptx").string(), (dir / "a2.ptx").string()});
  EXPECT_EQ(same.exitCode, 0) << same.out << same.err;
  CommandResult changed = runCommand({PTXDUMP_EXE, "diff", (dir / "a.ptx").string(), (dir / "b.ptx").string()});
  EXPECT_EQ(changed.exitCode, 1) << changed.out << changed.err;
  // The statement moved from line 3 to 4 and the closing brace from 4 to 5; the rows before stay.
  EXPECT_NE(changed.out.find(source + ":3:3 -> " + source + ":4:3\n"), std::string::npos) << changed.out;
  EXPECT_NE(changed.out.find(source + ":4:1 -> " + source + ":5:1\n"), std::string::npos) << changed.out;
  EXPECT_EQ(changed.out.find(":2:3 ->"), std::string::npos) << changed.out;
  EXPECT_NE(changed.out.find(", 2 line-table entries different\n"), std::string::npos) << changed.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
