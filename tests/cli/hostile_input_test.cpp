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
        "check " + f, "diff " + f + " " + f, std::string("--help")}) {
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
    CommandResult r = shell("ulimit -v 1000000; " + command);  // reading 1 GiB would need more than this
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

}  // namespace
