// ptxdump-verify: `ptxdump verify`, in an executable of its own because it links
// libLLVM and libdwarf, which every other ptxdump command would pay for at start-up.
// ptxdump execs it with the arguments that followed `verify`.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "commands.h"
#include "verify.h"

int main(int argc, char** argv) {
  CLI::App app{"Compare the decoded DWARF with LLVM's DebugInfo and libdwarf (from memory)", "ptxdump-verify"};
  app.set_version_flag("--version", "ptxdump-verify 0.1.0");

  ptxdump::VerifyRequest verify;
  std::string verifyWith = "all";
  app.add_option("files", verify.files, "PTX files")->required();
  app.add_option("--with", verifyWith, "Oracles: llvm, libdwarf or all")
      ->check(CLI::IsMember({"llvm", "libdwarf", "all"}));
  app.add_flag("-v,--verbose", verify.verbose, "Time each oracle");
  app.footer("Example:\n  ptxdump verify --with llvm fixtures/chapter6.ptx");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : ptxdump::kUnreadable;
  }

  verify.llvm = verifyWith == "llvm" || verifyWith == "all";
  verify.libdwarf = verifyWith == "libdwarf" || verifyWith == "all";
  std::string out, err;
  int code = ptxdump::runVerify(verify, out, err);
  ptxdump::writeTo(stderr, err);  // disagreements first, then the summary
  ptxdump::writeTo(stdout, out);
  return code;
}
