// `ptxdump verify`: our decoder against LLVM's DebugInfo/DWARF and libdwarf.
#pragma once

#include <string>
#include <vector>

namespace ptxdump {

struct VerifyRequest {
  std::vector<std::string> files;
  bool llvm = true;
  bool libdwarf = true;
  bool verbose = false;  // also list what each oracle compared, file by file
};

// Disagreements to `err` as `file: verify[llvm]: .debug_info+0x45: DW_AT_name: ours "x", llvm "y"`,
// a summary per file and oracle to `out`. Exit 0 all agree, 1 disagreements (or
// errors any reader reported), 2 a file cannot be read or an oracle is missing.
int runVerify(const VerifyRequest& request, std::string& out, std::string& err);

}  // namespace ptxdump
