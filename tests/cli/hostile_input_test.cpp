// Careless and hostile input and environments (issue 15): outputs that cannot
// be written, files that change or never end, directories, editors' encodings,
// names that would reach the terminal raw. Each test fails without its fix.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "commands.h"
#include "tools.h"

using ptxdwarf::testsupport::CommandResult;
using ptxdwarf::testsupport::readFile;
using ptxdwarf::testsupport::runCommand;
using ptxdwarf::testsupport::writeFile;

namespace {

const std::string kFixtures = PTXDWARF_FIXTURES;
const std::string kChapter6 = kFixtures + "/chapter6.ptx";
const std::string kPtxdump = PTXDUMP_EXE;

CommandResult ptxdump(std::vector<std::string> args) {
  args.insert(args.begin(), kPtxdump);
  return runCommand(args);
}

// `script` run by /bin/sh with $PTXDUMP set: for redirections and ulimit.
CommandResult shell(const std::string& script) {
  return runCommand({"/bin/sh", "-c", "PTXDUMP='" + kPtxdump + "'; " + script});
}

std::string chapter6() { return readFile(kChapter6).value_or(""); }

// A fresh directory of its own, removed with the object: the tests look at
// every file in it (temporary files left behind would show).
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / ("ptxdump_hostile_" + std::to_string(getpid()) + "_" + name)) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
  std::vector<std::string> names() const {
    std::vector<std::string> v;
    for (const auto& e : std::filesystem::directory_iterator(path)) v.push_back(e.path().filename().string());
    std::sort(v.begin(), v.end());
    return v;
  }
};

// ---- 2. output files are replaced only when fully written ----

TEST(HostileOutput, ReformatOverItsInputPastAFileSizeLimitKeepsTheInput) {
  TempDir dir("fsize");
  const std::string input = dir.file("x.ptx");
  ASSERT_TRUE(writeFile(input, chapter6()));
  // ulimit -f counts 512-byte blocks: 2 KB, less than the verbose rewrite (~9 KB).
  CommandResult r = shell("ulimit -f 4; \"$PTXDUMP\" reformat '" + input + "' --style verbose -o '" + input + "'");
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(r.err, input + ": error: cannot write: File too large\n");
  EXPECT_EQ(readFile(input), chapter6()) << "the input was cut short";
  EXPECT_EQ(dir.names(), std::vector<std::string>{"x.ptx"}) << "a temporary file was left behind";
}

// The same for annotate: its output is several times its input.
TEST(HostileOutput, AnnotateOverItsInputPastAFileSizeLimitKeepsTheInput) {
  TempDir dir("annotate");
  const std::string input = dir.file("k.ptx");
  const std::string kernel = *readFile(std::string(PTXDWARF_FIXTURES) + "/annotate/dsl.ptx");
  ASSERT_TRUE(writeFile(input, kernel));
  CommandResult r = shell("ulimit -f 4; \"$PTXDUMP\" annotate '" + input + "' --rename-registers -o '" + input + "'");
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find(input + ": error: cannot write: File too large\n"), std::string::npos) << r.err;
  EXPECT_EQ(readFile(input), kernel) << "the input was cut short";
  EXPECT_EQ(dir.names(), std::vector<std::string>{"k.ptx"}) << "a temporary file was left behind";
}

TEST(HostileOutput, ExistingTargetsSurviveAFailedWrite) {
  TempDir dir("target");
  const std::string target = dir.file("out.bin");
  ASSERT_TRUE(writeFile(target, std::string(100000, 'k')));
  chmod(target.c_str(), 0640);
  // extract writes 266 bytes: under the limit, so it succeeds and keeps the mode.
  CommandResult ok = shell("ulimit -f 1; \"$PTXDUMP\" extract '" + kChapter6 + "' --section .debug_info -o '" +
                           target + "'");
  ASSERT_EQ(ok.exitCode, 0) << ok.err;
  EXPECT_EQ(readFile(target)->size(), 266u);
  struct stat st {};
  ASSERT_EQ(stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  // reformat writes ~2.5 KB: over the limit; the 266 bytes stay.
  CommandResult failed = shell("ulimit -f 1; \"$PTXDUMP\" reformat '" + kChapter6 + "' -o '" + target + "'");
  EXPECT_EQ(failed.exitCode, 2);
  EXPECT_EQ(readFile(target)->size(), 266u);
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.bin"});
}

// reformat -o writes its text as it is made, reading the input's text back
// from the mapped file: the file holds what stdout gets, in every style and
// re-encoded, for files whose sections are split, appended, labelled, CRLF.
TEST(HostileOutput, ReformatToAFileIsWhatStdoutGets) {
  TempDir dir("reformat_file");
  const std::string out = dir.file("out.ptx");
  for (const std::string& input :
       {kChapter6, kFixtures + "/variants/split_blocks.ptx", kFixtures + "/variants/crlf.ptx",
        kFixtures + "/variants/section_labels.ptx", kFixtures + "/variants/empty_blocks.ptx",
        kFixtures + "/variants/comments.ptx"}) {
    for (const char* style : {"packed", "one-per-line", "verbose", "dense"}) {
      for (bool reencode : {false, true}) {
        std::vector<std::string> args{"reformat", input, "--style", style};
        if (reencode) args.push_back("--reencode");
        const CommandResult toStdout = ptxdump(args);
        args.insert(args.end(), {"-o", out});
        const CommandResult toFile = ptxdump(args);
        const std::string what = input + " " + style + (reencode ? " --reencode" : "");
        ASSERT_EQ(toStdout.exitCode, toFile.exitCode) << what << toFile.err;
        EXPECT_EQ(toStdout.err, toFile.err) << what;
        EXPECT_EQ(toFile.out, "") << what;
        if (toFile.exitCode != 0) continue;
        EXPECT_EQ(readFile(out), toStdout.out) << what;
        EXPECT_EQ(dir.names(), std::vector<std::string>{"out.ptx"}) << what;
      }
    }
  }
}

// A refused reformat (labels in sections need .version 7.0) creates no file.
TEST(HostileOutput, RefusedReformatCreatesNoFile) {
  TempDir dir("reformat_refused");
  const std::string input = dir.file("x.ptx");
  std::string text = readFile(kFixtures + "/variants/section_labels.ptx").value_or("");
  ASSERT_EQ(text.rfind(".version 7.0\n", 0), 0u);
  text.replace(0, 12, ".version 6.5");
  ASSERT_TRUE(writeFile(input, text));
  const CommandResult r = ptxdump({"reformat", input, "-o", dir.file("out.ptx")});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find(input + ":54:6: error: label '$L__debug_info_1' at .debug_info+0: labels inside a section need "
                               "PTX .version 7.0 or later (target is 6.5)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(dir.names(), std::vector<std::string>{"x.ptx"});
}

TEST(HostileOutput, OutputToADeviceIsWrittenInPlace) {
  // /dev/null is not replaced by a regular file (as root, a rename would do that).
  CommandResult r = ptxdump({"reformat", kChapter6, "-o", "/dev/null"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(HostileOutput, ExtractOverItsInputIsRefused) {
  TempDir dir("extract");
  const std::string input = dir.file("x.ptx");
  ASSERT_TRUE(writeFile(input, chapter6()));
  CommandResult r = ptxdump({"extract", input, "--section", ".debug_info", "-o", input});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err, input + ": error: -o names the input file; the section's bytes would replace the PTX\n");
  EXPECT_EQ(readFile(input), chapter6());
}

// ---- 3. a failed write to stdout is an error ----

TEST(HostileOutput, EveryCommandFailsOnAFullStdout) {
  const std::string f = "'" + kChapter6 + "'";
  for (const std::string& command : std::vector<std::string>{"reformat " + f, "dump " + f, "dump --format json " + f, "dump --all " + f,
        "extract " + f + " --section .debug_info -o -", "extract " + f + " --section .debug_info --relocs",
        "check " + f, "diff " + f + " " + f, std::string("--help"), "dump --debug-line " + f,
        "dump --format json-lines --all " + f, "dump --statistics " + f, "lookup " + f + " --at _Z4testPi",
        "types " + f, "annotate '" + std::string(PTXDWARF_FIXTURES) + "/annotate/dsl.ptx'"}) {
    CommandResult r = shell("\"$PTXDUMP\" " + command + " > /dev/full");
    EXPECT_EQ(r.exitCode, 2) << command;
    EXPECT_NE(r.err.find("ptxdump: error: cannot write to standard output: No space left on device"),
              std::string::npos)
        << command << ": " << r.err;
  }
}

// ---- 5. endless and binary streams stop at the first NUL ----

TEST(HostileInput, DevZeroIsRejectedAtTheFirstByte) {
  for (std::string command : {"\"$PTXDUMP\" check /dev/zero", "\"$PTXDUMP\" dump - < /dev/zero",
                                     "cat /dev/zero | \"$PTXDUMP\" dump -"}) {
    // Before: read up to the 1 GiB limit (2 GB of memory, 11 s), then "input exceeds 1024 MiB".
    CommandResult r = shell(command);
    EXPECT_EQ(r.exitCode, 2) << command;
    EXPECT_NE(r.err.find(":1:1: error: NUL byte in the input: this is not PTX text"), std::string::npos)
        << command << ": " << r.err;
  }
}

TEST(HostileInput, ReadingAStreamStopsAtItsFirstNul) {
  // A pipe that would never end after the NUL: the reader must stop there.
  CommandResult r = shell("(cat '" + kChapter6 + "'; printf 'x\\0'; cat /dev/zero) | \"$PTXDUMP\" dump -");
  EXPECT_EQ(r.exitCode, 2);
  const std::string text = chapter6();
  const size_t lastLine = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  EXPECT_EQ(r.err, "-:" + std::to_string(lastLine) + ":2: error: NUL byte in the input: this is not PTX text\n");
}

// ---- 6. a mapped file that shrinks ----

TEST(HostileInput, AMappedFileThatShrinksIsAnErrorNotSigbus) {
  TempDir dir("shrink");
  const std::string path = dir.file("x.ptx");
  std::string text;
  while (text.size() < (1u << 20)) text += chapter6();
  ASSERT_TRUE(writeFile(path, text));
  ptxdump::FileText file;
  std::string error;
  ASSERT_TRUE(file.load(path, error)) << error;
  EXPECT_FALSE(file.shrank());
  ASSERT_EQ(truncate(path.c_str(), 4096), 0);
  file.release(0, UINT64_MAX);  // drop the pages so that reading them faults
  uint64_t sum = 0;
  for (char c : file.view()) sum += static_cast<unsigned char>(c);  // SIGBUS here without the guard
  EXPECT_TRUE(file.shrank());
  // The first page is still the file's; the rest reads as zeros.
  uint64_t firstPage = 0;
  for (char c : file.view().substr(0, 4096)) firstPage += static_cast<unsigned char>(c);
  EXPECT_EQ(sum, firstPage);
}

TEST(HostileInput, AFileThatDoesNotShrinkReadsWhole) {
  ptxdump::FileText file;
  std::string error;
  ASSERT_TRUE(file.load(kChapter6, error)) << error;
  EXPECT_EQ(file.view(), chapter6());
  EXPECT_FALSE(file.shrank());
}

// ---- 10. messages ----

TEST(HostileInput, ADirectoryIsNamedAsOne) {
  CommandResult r = ptxdump({"check", kFixtures});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err, kFixtures + ": error: cannot read file: it is a directory, not a PTX file\n");
}

TEST(HostileInput, AByteOrderMarkIsNamed) {
  TempDir dir("bom");
  const std::string path = dir.file("bom.ptx");
  ASSERT_TRUE(writeFile(path, "\xEF\xBB\xBF" + chapter6()));
  CommandResult r = ptxdump({"check", path});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err, path + ":1:1: error: the file starts with a UTF-8 byte order mark, which ptxas rejects; save it "
                          "without one\n");
}

TEST(HostileInput, CarriageReturnLineEndingsAreNamed) {
  TempDir dir("cr");
  std::string text = chapter6();
  std::string crlf;
  for (char& c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  std::replace(text.begin(), text.end(), '\n', '\r');
  const std::string cr = dir.file("cr.ptx"), windows = dir.file("crlf.ptx");
  ASSERT_TRUE(writeFile(cr, text));
  ASSERT_TRUE(writeFile(windows, crlf));
  CommandResult r = ptxdump({"check", cr});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err, cr + ":1:" + std::to_string(chapter6().find('\n') + 1) +
                       ": error: lines end in a carriage return alone (classic Mac OS line endings), which ptxas reads "
                       "as one line; convert them to \\n or \\r\\n\n");
  // \r\n is fine (ptxas accepts it too).
  CommandResult w = ptxdump({"check", windows});
  EXPECT_EQ(w.exitCode, 0) << w.err;
}

TEST(HostileInput, DiffOfStdinWithItselfIsRefused) {
  CommandResult r = shell("\"$PTXDUMP\" diff - - < '" + kChapter6 + "'");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err, "ptxdump: error: diff - -: standard input can be read only once; name a file for one side\n");
}

// ---- 7. diff escapes names ----

TEST(HostileOutput, DiffEscapesNamesAsTheDumpDoes) {
  // DW_AT_name "_Z3fooii" becomes "_Z\n+ \e[J": a newline that would start a
  // forged "+ " line and a terminal escape that clears the screen.
  TempDir dir("names");
  std::string text = chapter6();
  const std::string from = ".b8 51, 102, 111, 111, 105, 105, 0\n";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), ".b8 10, 43, 32, 27, 91, 74, 0\n");
  const std::string renamed = dir.file("renamed.ptx");
  ASSERT_TRUE(writeFile(renamed, text));
  CommandResult r = ptxdump({"diff", renamed, kChapter6});  // paths name the old side's DIEs
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("subprogram[_Z\\n+ \\033[J]"), std::string::npos) << r.out;
  // Every line is a diff line or the summary: none was forged.
  size_t begin = 0;
  for (size_t end; (end = r.out.find('\n', begin)) != std::string::npos; begin = end + 1) {
    std::string_view line(r.out.data() + begin, end - begin);
    bool counted = line.find(" changed, ") != std::string_view::npos;
    EXPECT_TRUE(counted || line.starts_with("+ compile_unit/") || line.starts_with("- compile_unit/") ||
                line.starts_with("~ compile_unit/"))
        << line;
  }
}

// ---- 9. check rejects what ptxas or llvm-dwarfdump reject ----

// A unit whose compile_unit has one DW_AT_name of DW_FORM_strp, written `strp`.
std::string strpModule(const std::string& strp, const std::string& str = ".b8 97, 0") {
  return ".version 7.5\n.target sm_75\n.address_size 64\n"
         ".section .debug_abbrev { .b8 1, 17, 0, 3, 14, 0, 0, 0 }\n"
         ".section .debug_info {\n.b32 12\n.b8 2, 0\n.b32 .debug_abbrev\n.b8 8, 1\n.b32 " +
         strp + "\n}\n.section .debug_str { " + str + " }\n";
}

// `ptxdump check` on `text`: its diagnostics with the file name cut off.
struct Checked {
  int exitCode;
  std::string diagnostics;
};
Checked checkText(const TempDir& dir, const std::string& text) {
  const std::string path = dir.file("x.ptx");
  EXPECT_TRUE(writeFile(path, text));
  CommandResult r = ptxdump({"check", path});
  std::string d = r.err;
  for (size_t at; (at = d.find(path)) != std::string::npos;) d.erase(at, path.size());
  return {r.exitCode, d};
}

TEST(HostileCheck, StringOffsetsPastOrIntoAnUnterminatedString) {
  TempDir dir("strp");
  Checked past = checkText(dir, strpModule(".debug_str+2"));
  EXPECT_EQ(past.exitCode, 1);
  EXPECT_EQ(past.diagnostics,
            ":10:6: error: DW_AT_name (DW_FORM_strp) offset 2 is past the end of .debug_str (size 2) (in "
            "DW_TAG_compile_unit at 0x0000000b) [string-offset] (.debug_info+0xc)\n");
  Checked plain = checkText(dir, strpModule("7"));
  EXPECT_NE(plain.diagnostics.find("offset 7 is past the end of .debug_str (size 2)"), std::string::npos);
  Checked unterminated = checkText(dir, strpModule(".debug_str", ".b8 97, 98"));
  EXPECT_EQ(unterminated.exitCode, 1);
  EXPECT_NE(unterminated.diagnostics.find(":10:6: error: DW_AT_name (DW_FORM_strp) names the string at "
                                          ".debug_str+0, which runs to the end of the section without a NUL"),
            std::string::npos)
      << unterminated.diagnostics;
  Checked fine = checkText(dir, strpModule(".debug_str+1"));  // the empty string at the NUL
  EXPECT_EQ(fine.exitCode, 0) << fine.diagnostics;
}

TEST(HostileCheck, NegativeSectionOffsetIsFoundByCheckAndPlacedByReformat) {
  TempDir dir("negative");
  Checked c = checkText(dir, strpModule(".debug_str-1"));
  EXPECT_EQ(c.exitCode, 1);
  EXPECT_NE(c.diagnostics.find(":10:6: error: '.debug_str-1' points before the start of .debug_str; ptxas rejects a "
                               "negative addend"),
            std::string::npos)
      << c.diagnostics;
  // reformat --reencode refuses it at the input's line, not at 0:0.
  CommandResult r = ptxdump({"reformat", "--reencode", dir.file("x.ptx")});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find(dir.file("x.ptx") + ":10:6: error: relocation '.debug_str-1'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(":0:0:"), std::string::npos) << r.err;
}

TEST(HostileCheck, OperandNamingASectionThatDoesNotExist) {
  TempDir dir("nosection");
  Checked c = checkText(dir, strpModule(".debug_nope"));
  EXPECT_NE(c.diagnostics.find(":10:6: error: '.debug_nope' names section .debug_nope, which this file does not "
                               "define"),
            std::string::npos)
      << c.diagnostics;
  EXPECT_NE(c.diagnostics.find("[string-offset]"), std::string::npos);  // and it is no string offset
}

TEST(HostileCheck, PubnamesHeaderNamingAnotherSection) {
  TempDir dir("pubnames");
  std::string text = chapter6();
  const std::string from = ".b32 .debug_info\n.b32 262, 69";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), ".b32 .debug_pubnames\n.b32 262, 69");
  Checked c = checkText(dir, text);
  EXPECT_EQ(c.exitCode, 1);
  EXPECT_NE(c.diagnostics.find("error: debug_info_offset is '.debug_pubnames', not an offset into .debug_info "
                               "[pubnames-header]"),
            std::string::npos)
      << c.diagnostics;
}

TEST(HostileCheck, TypeCycles) {
  TempDir dir("cycles");
  // The Chapter 6 pointer type (0x103) pointing to itself.
  std::string text = chapter6();
  const std::string pointer = ".b32 164\n.b8 12, 0\n}";
  ASSERT_NE(text.find(pointer), std::string::npos);
  text.replace(text.find(pointer), pointer.size(), ".b32 259\n.b8 12, 0\n}");
  Checked self = checkText(dir, text);
  EXPECT_EQ(self.exitCode, 1);
  EXPECT_NE(self.diagnostics.find("error: DW_AT_type loops: DW_TAG_pointer_type at 0x00000103 -> back to "
                                  "0x00000103"),
            std::string::npos)
      << self.diagnostics;
  // A typedef loop (T1 -> T2 -> T1) and an array of itself, in one unit:
  // 1: compile_unit; 2: typedef, name string, type ref4; 3: array_type, type ref4.
  const std::string loops =
      ".version 7.5\n.target sm_75\n.address_size 64\n"
      ".section .debug_abbrev { .b8 1, 17, 1, 0, 0, 2, 22, 0, 3, 8, 73, 19, 0, 0, 3, 1, 0, 73, 19, 0, 0, 0 }\n"
      ".section .debug_info {\n.b32 28\n.b8 2, 0\n.b32 .debug_abbrev\n.b8 8, 1\n"
      ".b8 2, 65, 0\n.b32 19\n"   // 0x0c typedef A -> 0x13
      ".b8 2, 66, 0\n.b32 12\n"   // 0x13 typedef B -> 0x0c
      ".b8 3\n.b32 26\n"          // 0x1a array of itself
      ".b8 0\n}\n";
  Checked c = checkText(dir, loops);
  EXPECT_EQ(c.exitCode, 1);
  EXPECT_NE(c.diagnostics.find(":11:6: error: DW_AT_type loops: DW_TAG_typedef 'A' at 0x0000000c -> DW_TAG_typedef "
                               "'B' at 0x00000013 -> back to 0x0000000c"),
            std::string::npos)
      << c.diagnostics;
  EXPECT_NE(c.diagnostics.find("DW_AT_type loops: DW_TAG_array_type at 0x0000001a -> back to 0x0000001a"),
            std::string::npos)
      << c.diagnostics;
  // The dump still finishes (type names do not recurse forever).
  CommandResult dump = ptxdump({"dump", dir.file("x.ptx")});
  EXPECT_EQ(dump.exitCode, 0) << dump.err;
}

TEST(HostileCheck, SectionLabelsDefinedTwiceOrNamedLikeAFunction) {
  TempDir dir("labels");
  const std::string module = ".version 7.5\n.target sm_75\n.address_size 64\n.visible .entry k() { ret; }\n"
                             ".section .debug_abbrev { .b8 1, 17, 0, 0, 0, 0 }\n"
                             ".section .debug_info {\nL1:\n.b32 8\n.b8 2, 0\n.b32 .debug_abbrev\n.b8 8, 1\n}\n"
                             ".section .debug_str {\nL1:\n.b8 97, 0\n}\n";
  Checked twice = checkText(dir, module);
  EXPECT_EQ(twice.exitCode, 1);
  EXPECT_EQ(twice.diagnostics,
            ":14:1: error: label 'L1' is defined twice (first in .debug_info at line 7); ptxas rejects it "
            "(\"Duplicate definition of label\") [section-label] (.debug_str+0x0)\n");
  std::string function = module;
  function.replace(function.find("L1:"), 3, "k:");
  Checked clash = checkText(dir, function);
  EXPECT_EQ(clash.diagnostics,
            ":7:1: error: label 'k' in .debug_info has the name of a function; ptxas accepts it without a word, and "
            "an operand naming it could mean either [section-label] (.debug_info+0x0)\n");
}

}  // namespace
