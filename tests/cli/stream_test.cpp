// ptxdump writes text dumps to stdout a megabyte at a time from one reused
// buffer; what it writes must be exactly the dump rendered whole in memory.
#include <gtest/gtest.h>

#include "commands.h"
#include "tools.h"

namespace {

const std::string kChapter6 = std::string(PTXDWARF_FIXTURES) + "/chapter6.ptx";

TEST(PtxdumpStream, StreamedDumpEqualsTheDumpRenderedInMemory) {
  // Chapter 6, 1,500 times: several megabytes, so several flushes, some of
  // them in the middle of a file's dump.
  ptxdump::DumpRequest request;
  request.files.assign(1500, kChapter6);
  request.sections.loc = request.sections.pubnames = request.sections.abbrev = true;
  std::string whole, err;
  ASSERT_EQ(ptxdump::runDump(request, whole, err), 0) << err;
  ASSERT_GT(whole.size(), size_t{3} << 20);

  std::vector<std::string> args = {PTXDUMP_EXE, "dump", "--debug-info", "--debug-loc", "--debug-pubnames",
                                   "--debug-abbrev"};
  args.insert(args.end(), request.files.begin(), request.files.end());
  ptxdwarf::testsupport::CommandResult r = ptxdwarf::testsupport::runCommand(args);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(r.out == whole) << "streamed " << r.out.size() << " bytes, rendered in memory " << whole.size();
}

}  // namespace

namespace {

// A sink that counts what is handed to it and keeps nothing.
ptxdwarf::print::Sink countingSink(size_t& count) {
  return [&count](std::string_view s) { count += s.size(); };
}

// n variables whose DW_AT_location names entry i of one list of n entries:
// each DIE's JSON carries the rest of the list, so the JSON is quadratic in n
// (the 315 KB input of issue 15 made 604 MB of it).
std::string sharedListModule(size_t n) {
  std::string text = ".version 7.5\n.target sm_75\n.address_size 64\n";
  text += ".section .debug_abbrev {\n.b8 1, 17, 1, 0, 0, 2, 52, 0, 2, 6, 0, 0, 0\n}\n";
  text += ".section .debug_info {\n.b32 " + std::to_string(7 + 1 + 5 * n + 1) + "\n.b8 2, 0\n.b32 0\n.b8 8, 1\n";
  for (size_t i = 0; i < n; ++i) text += ".b8 2\n.b32 " + std::to_string(i * 19) + "\n";
  text += ".b8 0\n}\n.section .debug_loc {\n";
  for (size_t i = 0; i < n; ++i) text += ".b64 " + std::to_string(4 * i) + ", " + std::to_string(4 * i + 4) + "\n.b8 1, 0, 48\n";
  return text + ".b64 0, 0\n}\n";
}

TEST(PtxdumpStream, JsonIsStreamedNotHeldWhole) {
  const std::string text = sharedListModule(400);
  ptxdwarf::ptx::ReadResult r = ptxdwarf::ptx::read(text, "shared.ptx");
  ASSERT_TRUE(r.ok());
  ptxdwarf::read::Dwarf dwarf = ptxdwarf::read::decode(r.module.sections);
  for (bool lines : {false, true}) {
    size_t written = 0;
    std::string out;
    ptxdwarf::print::dumpJson(r.module, dwarf, {true, false, false, false, true, false}, out, countingSink(written),
                              lines);
    EXPECT_TRUE(out.empty());
    EXPECT_GT(written, size_t{10} << 20) << "the input should make over 10 MB of JSON";
    // The buffer held about a chunk at a time, not the whole JSON.
    EXPECT_LT(out.capacity(), size_t{4} << 20) << (lines ? "json-lines" : "json");
  }
}

TEST(PtxdumpStream, JsonLinesParentsRebuildTheTree) {
  // A 25,000-deep tree: each DIE on its own line with its parent's offset.
  constexpr size_t n = 25000;
  std::string text = ".version 7.5\n.target sm_75\n.address_size 64\n";
  text += ".section .debug_abbrev {\n.b8 1, 17, 1, 0, 0, 2, 11, 1, 0, 0, 0\n}\n";
  text += ".section .debug_info {\n.b32 " + std::to_string(7 + 1 + n + n + 1) + "\n.b8 2, 0\n.b32 0\n.b8 8, 1\n";
  for (size_t i = 0; i < n; ++i) text += ".b8 2\n";
  for (size_t i = 0; i <= n; ++i) text += ".b8 0\n";
  text += "}\n";
  const std::string path = ::testing::TempDir() + "deep_" + std::to_string(getpid()) + ".ptx";
  ASSERT_TRUE(ptxdwarf::testsupport::writeFile(path, text));
  ptxdwarf::testsupport::CommandResult r =
      ptxdwarf::testsupport::runCommand({PTXDUMP_EXE, "dump", "--format", "json-lines", path});
  std::remove(path.c_str());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  size_t dies = 0, begin = 0;
  uint64_t expectedParent = 11;  // the compile unit, then each block the next one's parent
  for (size_t end; (end = r.out.find('\n', begin)) != std::string::npos; begin = end + 1) {
    std::string_view line(r.out.data() + begin, end - begin);
    if (!line.starts_with("{\"kind\":\"die\"")) continue;
    if (line.find("\"parent\":null") != std::string_view::npos) continue;  // the unit DIE
    EXPECT_NE(line.find("\"parent\":" + std::to_string(expectedParent) + ","), std::string_view::npos) << line;
    ++expectedParent;
    ++dies;
    if (HasFailure()) break;
  }
  EXPECT_EQ(dies, n);
}

}  // namespace
