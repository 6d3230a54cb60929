// ptxdump end to end: the commands users type, their output and exit codes.
#include <gtest/gtest.h>

#include <filesystem>

#include "ptxdwarf/ptx/module.h"
#include "tools.h"

using ptxdwarf::testsupport::CommandResult;
using ptxdwarf::testsupport::readFile;
using ptxdwarf::testsupport::runCommand;

namespace {

const std::string kFixtures = PTXDWARF_FIXTURES;
const std::string kChapter6 = kFixtures + "/chapter6.ptx";

CommandResult ptxdump(std::vector<std::string> args) {
  args.insert(args.begin(), PTXDUMP_EXE);
  return runCommand(args);
}

size_t countLines(const std::string& text, std::string_view needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ptxdump_cli_" + std::to_string(getpid()) + "_" + name)).string();
}

}  // namespace

TEST(PtxdumpCli, DefaultCommandDumpsTheChapter6DieTree) {
  CommandResult r = ptxdump({kChapter6});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find(".debug_info contents:"), std::string::npos);
  EXPECT_NE(r.out.find("0x00000000: Compile Unit: length = 0x00000106, format = DWARF32, version = 0x0002"),
            std::string::npos);
  // The 9 DIEs of the example, at their offsets.
  for (const char* line : {"0x0000000b: DW_TAG_compile_unit", "0x00000045:   DW_TAG_subprogram",
                           "0x00000077:     DW_TAG_formal_parameter", "0x0000008d:     DW_TAG_formal_parameter",
                           "0x000000a4:   DW_TAG_base_type", "0x000000ae:   DW_TAG_subprogram",
                           "0x000000e2:     DW_TAG_formal_parameter", "0x000000fd:   DW_TAG_unspecified_type",
                           "0x00000103:   DW_TAG_pointer_type"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line;
  EXPECT_EQ(countLines(r.out, ": DW_TAG_") + countLines(r.out, ":   DW_TAG_") + countLines(r.out, ":     DW_TAG_"), 9u);
  EXPECT_EQ(r.out, ptxdump({"dump", kChapter6}).out);
}

TEST(PtxdumpCli, Pubnames) {
  CommandResult r = ptxdump({"--debug-pubnames", kChapter6});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find(".debug_pubnames contents:"), std::string::npos);
  EXPECT_NE(r.out.find("0x00000045 \"_Z3fooii\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0x000000ae \"_Z4testPi\""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("DW_TAG_subprogram"), std::string::npos);  // only the selected section
}

TEST(PtxdumpCli, ExtractWritesTheSectionBytes) {
  std::string text = *readFile(kChapter6);
  ptxdwarf::ptx::ReadResult read = ptxdwarf::ptx::read(text, kChapter6);
  const ptxdwarf::SectionImage* info = read.module.section(".debug_info");
  ASSERT_NE(info, nullptr);
  std::string out = tempPath("info.bin");
  CommandResult r = ptxdump({"extract", kChapter6, "--section", ".debug_info", "-o", out});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::optional<std::string> bytes = readFile(out);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(*bytes, std::string(info->bytes.begin(), info->bytes.end()));
  EXPECT_EQ(bytes->size(), 266u);
  std::filesystem::remove(out);
}

TEST(PtxdumpCli, ExtractRelocations) {
  CommandResult r = ptxdump({"extract", kChapter6, "--section", "debug_info", "--relocs"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out,
            "0x00000006 4 .debug_abbrev\n"
            "0x0000002e 4 .debug_line\n"
            "0x00000065 8 func_begin0\n"
            "0x0000006d 8 func_end0\n"
            "0x000000d0 8 func_begin1\n"
            "0x000000d8 8 func_end1\n"
            "0x000000f3 8 _Z4testPi_param_0\n");
  CommandResult pub = ptxdump({"extract", kChapter6, "--section", ".debug_pubnames", "--relocs"});
  EXPECT_EQ(pub.out, "0x00000006 4 .debug_info\n");
}

TEST(PtxdumpCli, ExtractMissingSection) {
  CommandResult r = ptxdump({"extract", kChapter6, "--section", ".debug_loc", "-o", "-"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err, kChapter6 + ": error: no section .debug_loc in this file (it has: .debug_info .debug_abbrev "
                               ".debug_pubnames)\n");
}

TEST(PtxdumpCli, FileWithoutDebugSectionsIsNotAnError) {
  std::string path = tempPath("nodebug.ptx");
  ASSERT_TRUE(ptxdwarf::testsupport::writeFile(path, ".version 7.5\n.target sm_75\n.address_size 64\n"
                                                     ".visible .entry k() { ret; }\n"));
  CommandResult r = ptxdump({path});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, path + ": no debug sections\n");
  std::filesystem::remove(path);
}

TEST(PtxdumpCli, AReadWarningIsSaidOnceWhenTheDumpReadsTheFileAgain) {
  // No .debug_info: dump reads the file again with the code, and the
  // reader's warning comes from one of the two reads only.
  std::string path = tempPath("wide.ptx");
  ASSERT_TRUE(ptxdwarf::testsupport::writeFile(path, ".version 7.5\n.target sm_75\n.address_size 64\n"
                                                     ".section .debug_str\n{\n.b64 0x1122334455667788\n}\n"));
  CommandResult r = ptxdump({"dump", path});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(countLines(r.err, "[wide-constant]"), 1u) << r.err;
  EXPECT_NE(r.err.find(path + ":6:6: warning: .b64 0x1122334455667788"), std::string::npos) << r.err;
  std::filesystem::remove(path);
}

TEST(PtxdumpCli, UnreadableFile) {
  CommandResult r = ptxdump({kFixtures + "/does-not-exist.ptx"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err, kFixtures + "/does-not-exist.ptx: error: cannot read file: No such file or directory\n");
}

TEST(PtxdumpCli, HugeFileIsRefusedBeforeItIsRead) {
  std::string path = tempPath("huge.ptx");
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  std::filesystem::resize_file(path, uint64_t{2} << 30);  // 2 GiB, sparse: no disk used
  CommandResult r = ptxdump({"check", path});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err, path + ": error: cannot read file: file is 2147483648 bytes; ptxdump reads PTX files of at most "
                          "1024 MiB\n");
  std::filesystem::remove(path);
}

// Every reader error: the exact diagnostic, at the PTX line and column, exit code 2.
struct MalformedCase {
  const char* file;
  const char* diagnostic;  // after "path:"
};

class PtxdumpMalformed : public testing::TestWithParam<MalformedCase> {};

TEST_P(PtxdumpMalformed, ReportsFileLineColAndExits2) {
  std::string path = kFixtures + "/malformed/" + GetParam().file;
  for (const char* command : {"dump", "extract"}) {
    std::vector<std::string> args = {command, path};
    if (std::string(command) == "extract") args.insert(args.end(), {"--section", ".debug_info", "-o", "-"});
    CommandResult r = ptxdump(args);
    EXPECT_EQ(r.exitCode, 2) << command;
    EXPECT_EQ(r.out, "") << command;
    EXPECT_EQ(r.err, path + ":" + GetParam().diagnostic + "\n") << command;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, PtxdumpMalformed,
    testing::Values(
        MalformedCase{"out_of_range.ptx", "52:9: error: value out of range for type .b8: 256"},
        MalformedCase{"bad_operand.ptx", "52:5: error: invalid number in .b8 operand"},
        MalformedCase{"unterminated_block.ptx", "50:24: error: unterminated section .debug_abbrev: expected '}'"},
        MalformedCase{"unterminated_comment.ptx", "51:11: error: unterminated /* comment"},
        MalformedCase{"unknown_directive.ptx",
                      "52:1: error: unknown directive '.byte' inside section .debug_abbrev (expected .b8, .b16, .b32 "
                      "or .b64)"},
        MalformedCase{"symbol_in_b8.ptx",
                      "53:5: error: symbolic operand in .b8: ptxas accepts symbols only in .b32 and .b64 (\"Illegal "
                      "type for dwarf data\")"},
        MalformedCase{"nul_byte.ptx", "3:1: error: NUL byte in the input: this is not PTX text"},
        MalformedCase{"file_two_strings.ptx",
                      "44:17: error: a second string in .file: PTX takes one path (`.file N \"dir/name\"`); "
                      "`.file N \"dir\" \"name\"` is the DWARF 5 form of other assemblers, which ptxas rejects"},
        // It starts with the ELF magic: read as a cubin, too short to be one.
        MalformedCase{"not_text.ptx", " error: not a readable cubin: truncated ELF header: 15 bytes, 64 needed (at file offset 0xf)"}),
    [](const testing::TestParamInfo<MalformedCase>& info) {
      std::string name = info.param.file;
      return name.substr(0, name.find('.'));
    });

// Issue 14, item 7: --help names the program and shows examples; each
// subcommand's help shows one example, and that example runs (fixtures/ paths
// taken from the source tree): exit 0, or 1 where it finds differences.
TEST(PtxdumpHelp, NamesTheProgramAndShowsExamples) {
  CommandResult help = ptxdump({"--help"});
  ASSERT_EQ(help.exitCode, 0) << help.err;
  EXPECT_NE(help.out.find("Usage: ptxdump [OPTIONS] SUBCOMMAND"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("Examples:\n  ptxdump kernel.ptx "), std::string::npos) << help.out;
  for (const char* sub : {"dump", "extract", "check", "reformat", "diff", "verify", "lookup", "types", "annotate"}) {
    SCOPED_TRACE(sub);
    CommandResult r = ptxdump({sub, "--help"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::string marker = "Example:\n  ptxdump ";
    size_t at = r.out.find(marker);
    ASSERT_NE(at, std::string::npos) << r.out;
    std::string line = r.out.substr(at + marker.size(), r.out.find('\n', at + marker.size()) - at - marker.size());
    std::vector<std::string> args;
    for (size_t p = 0; p < line.size();) {
      size_t end = std::min(line.find(' ', p), line.size());
      std::string word = line.substr(p, end - p);
      if (word.starts_with("fixtures/")) word = kFixtures + word.substr(8);
      args.push_back(word);
      p = end + 1;
    }
    ASSERT_EQ(args.front(), sub) << line;
    CommandResult run = ptxdump(args);
    EXPECT_TRUE(run.exitCode == 0 || (run.exitCode == 1 && std::string(sub) == "diff")) << line << "\n" << run.err;
    EXPECT_FALSE(run.out.empty()) << line;
  }
}

// Issue 14, item 5: check --list-rules: every rule, its severity, what it
// checks and what ptxas does with such a fault; no files needed.
TEST(PtxdumpHelp, CheckListsItsRules) {
  CommandResult r = ptxdump({"check", "--list-rules"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("block-bounds               error    block lengths stay inside the unit; ptxas: stops: "
                       "\"Attempted to Dereference Out of Bounds\" (exit 255, no line)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("linkage-name               warning  "), std::string::npos) << r.out;
  // Rules that only ever warn say so, as their diagnostics do.
  EXPECT_NE(r.out.find("subprogram-lines           warning  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("inline-call-site           warning  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ptxas-form                 error    "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ref-target                 error    references land on the start of a DIE (inside the unit "
                       "for unit-relative forms); ptxas: accepts it without a word (exit 0)\n"),
            std::string::npos)
      << r.out;
  EXPECT_GE(countLines(r.out, "\n"), 40u);
  CommandResult none = ptxdump({"check"});
  EXPECT_EQ(none.exitCode, 2);
  EXPECT_NE(none.err.find("files is required"), std::string::npos) << none.err;
}
