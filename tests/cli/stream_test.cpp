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
