// Inputs and arguments that used to be taken for something they are not:
// stdin named twice, a line number past 32 bits, an empty output path or
// section name, a file that is not PTX at all, and an annotate whose output
// would be a thousand times its input. Each is a clear error.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/write/annotate.h"
#include "tools.h"

using namespace ptxdwarf::testsupport;

namespace {

const std::string kChapter6 = std::string(PTXDWARF_FIXTURES) + "/chapter6.ptx";
const std::string kAnnotateInput = std::string(PTXDWARF_FIXTURES) + "/annotate/dsl.ptx";

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ptxdump_refusals_" + std::to_string(getpid()) + "_" + name))
      .string();
}

struct TempFile {
  std::string path;
  TempFile(const std::string& name, const std::string& text) : path(tempPath(name)) {
    EXPECT_TRUE(writeFile(path, text)) << path;
  }
  ~TempFile() { std::filesystem::remove(path); }
};

CommandResult ptxdump(std::vector<std::string> args) {
  args.insert(args.begin(), PTXDUMP_EXE);
  return runCommand(args);
}

TEST(Refusals, StandardInputNamedTwice) {
  for (std::vector<std::string> args : {std::vector<std::string>{"check", "-", "-"},
                                        std::vector<std::string>{"check", "-j", "4", "-", kChapter6, "-"}}) {
    CommandResult r = ptxdump(args);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "ptxdump check: error: '-' is named more than once; standard input can be read only once\n");
  }
}

// Every number past what a line number holds, source or PTX: an error naming
// the number, never a lookup of what it wrapped to.
TEST(Refusals, LineNumbersOutOfRange) {
  for (const std::string number : {"4294967296", "4294967436", "18446744073709551637", "99999999999999999999999999"}) {
    for (const std::string& at : {"ptx:" + number, "call_example.cu:" + number}) {
      CommandResult r = ptxdump({"lookup", kChapter6, "--at", at});
      EXPECT_EQ(r.exitCode, 1) << at;
      EXPECT_EQ(r.out, "");
      EXPECT_EQ(r.err, kChapter6 + ": error: line number " + number + " is out of range (the largest is 4294967295)\n");
    }
  }
  CommandResult largest = ptxdump({"lookup", kChapter6, "--at", "ptx:4294967295"});
  EXPECT_EQ(largest.exitCode, 1);
  EXPECT_NE(largest.err.find("PTX line 4294967295 is not inside a function body"), std::string::npos) << largest.err;
}

TEST(Refusals, EmptyOutputPathsAndSectionNames) {
  for (std::string command : {"extract", "reformat", "annotate"}) {
    std::vector<std::string> args = {command, command == "annotate" ? kAnnotateInput : kChapter6, "-o", ""};
    if (command == "extract") args.insert(args.end(), {"--section", ".debug_info"});
    CommandResult r = ptxdump(args);
    EXPECT_EQ(r.exitCode, 2) << command;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "ptxdump " + command + ": error: -o: the output path is empty (write '-' for standard output)\n");
  }
  CommandResult section = ptxdump({"extract", kChapter6, "--section", ""});
  EXPECT_EQ(section.exitCode, 2);
  EXPECT_EQ(section.err, kChapter6 + ": error: --section: the section name is empty\n");
}

// ptxas: "Missing .version directive at start of file" for an empty file, a
// file of comments and blank lines, and one with everything but .version.
TEST(Refusals, FilesWithoutVersionAreNotPtx) {
  for (const std::string& text : {std::string(), std::string("\n  \n// nothing\n"),
                                  std::string(".target sm_80\n.address_size 64\n")}) {
    TempFile f("noversion.ptx", text);
    for (std::vector<std::string> args : {std::vector<std::string>{"dump", f.path},
                                          std::vector<std::string>{"check", f.path},
                                          std::vector<std::string>{"annotate", f.path}}) {
      CommandResult r = ptxdump(args);
      EXPECT_EQ(r.exitCode, 2) << args[0] << " on '" << text << "'";
      EXPECT_NE(r.err.find(f.path + ":1:1: error: no .version directive: this is not PTX (ptxas rejects a file without one)\n"),
                std::string::npos)
          << r.err;
      EXPECT_EQ(r.out.find("no debug sections"), std::string::npos) << r.out;
    }
  }
  if (std::optional<std::string> ptxas = findTool("ptxas")) {  // the oracle agrees
    TempFile empty("empty.ptx", "");
    CommandResult r = runCommand({*ptxas, "-arch=sm_80", empty.path, "-o", tempPath("empty.cubin")});
    EXPECT_NE(r.exitCode, 0);
    EXPECT_NE(r.err.find("Missing .version directive"), std::string::npos) << r.err;
  }
}

// `%r<N>` ranges: a few bytes of text that would each make up to a million
// variables. n ranges in a small file are refused past the limit, accepted
// under it, and accepted with the limit lifted; the library says the same.
std::string rangesModule(unsigned functions, unsigned registersEach) {
  std::string text = ".version 7.0\n.target sm_80\n.address_size 64\n";
  for (unsigned f = 0; f < functions; ++f)
    text += ".visible .entry k" + std::to_string(f) + "()\n{\n\t.reg .b32 %r<" + std::to_string(registersEach) +
            ">;\n\tmov.u32 %r1, 1;\n\tret;\n}\n";
  return text;
}

TEST(Refusals, AnnotateOutputFarLargerThanItsInput) {
  for (unsigned n : {1u, 4u}) {
    TempFile f("ranges.ptx", rangesModule(n, 100000000));
    CommandResult r = ptxdump({"annotate", f.path});
    EXPECT_EQ(r.exitCode, 1) << n;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("error: the annotated file would be about "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("variables; --max-growth (AnnotateOptions::maxGrowth) raises the limit, 0 lifts it [annotate]"),
              std::string::npos)
        << r.err;
    const std::string out = tempPath("ranges_out.ptx");
    CommandResult toFile = ptxdump({"annotate", f.path, "-o", out});
    EXPECT_EQ(toFile.exitCode, 1);
    EXPECT_FALSE(std::filesystem::exists(out)) << "a refused annotate writes nothing";
  }
  // A range whose variables fit under the limit, and one lifted.
  TempFile small("small_ranges.ptx", rangesModule(2, 100));
  CommandResult fits = ptxdump({"annotate", small.path});
  EXPECT_EQ(fits.exitCode, 0) << fits.err;
  TempFile large("lifted.ptx", rangesModule(1, 20000));
  CommandResult refused = ptxdump({"annotate", large.path, "--max-growth", "4"});
  EXPECT_EQ(refused.exitCode, 1) << refused.err;
  CommandResult lifted = ptxdump({"annotate", large.path, "--max-growth", "0"});
  EXPECT_EQ(lifted.exitCode, 0) << lifted.err;
  EXPECT_GT(lifted.out.size(), 20000u * 40) << "every register got its variable";

  // The library (what a JIT calls): an error, nothing written.
  const std::string text = rangesModule(3, 100000000);
  ptxdwarf::ptx::ReadResult read = ptxdwarf::ptx::read(text, "jit.ptx");
  ASSERT_TRUE(read.ok());
  size_t written = 0;
  ptxdwarf::write::Annotated a =
      ptxdwarf::write::annotate(text, read.module, {}, [&](std::string_view piece) { written += piece.size(); });
  EXPECT_FALSE(a.written());
  EXPECT_EQ(written, 0u);
  ASSERT_EQ(a.diagnostics.items.size(), 1u);
  EXPECT_EQ(a.diagnostics.items[0].loc.line, 6u) << "at the range's declaration";
}

}  // namespace
