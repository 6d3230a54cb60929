// Rules of `check` on hand-made modules, where a case needs a shape real
// producers do not write.
#include <gtest/gtest.h>

#include <string>

#include "ptxdwarf/check/check.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

using namespace ptxdwarf;

namespace {

// Variables under one unit, each a DW_AT_location naming the one .debug_loc
// list (`.b32 .debug_loc`: DW_OP_addr of the .global `g`) and a
// DW_AT_address_class.
std::string sharedListVariables(const std::vector<int>& classes) {
  std::string text = ".version 7.5\n.target sm_75\n.address_size 64\n.global .b32 g;\n";
  // 1: compile_unit with children; 2: variable, location data4, address_class data1.
  text += ".section .debug_abbrev {\n.b8 1, 17, 1, 0, 0, 2, 52, 0, 2, 6, 51, 11, 0, 0, 0\n}\n";
  text += ".section .debug_info {\n.b32 " + std::to_string(2 + 4 + 1 + 1 + 6 * classes.size() + 1) +
          "\n.b8 2, 0\n.b32 0\n.b8 8, 1\n";
  for (int c : classes) text += ".b8 2\n.b32 .debug_loc\n.b8 " + std::to_string(c) + "\n";
  text += ".b8 0\n}\n";
  return text + ".section .debug_loc {\n.b64 0, 4\n.b8 9, 0, 3\n.b64 g\n.b64 0, 0\n}\n";
}

}  // namespace

// A list's expressions are checked once per address class they are held
// against: each class is judged, and a class seen before is not reported again.
TEST(CheckLocations, ASharedListIsJudgedOncePerAddressClass) {
  const std::string text = sharedListVariables({5, 8, 8, 5, 6});
  ptx::ReadResult r = ptx::read(text, "shared.ptx");
  ASSERT_TRUE(r.ok());
  read::Dwarf dwarf = read::decode(r.module.sections);
  ASSERT_TRUE(dwarf.diagnostics.items.empty());
  ASSERT_EQ(dwarf.locLists.size(), 1u);
  std::vector<std::string> classErrors;
  for (const Diagnostic& d : check::run(r.module, dwarf).items)
    if (d.rule == "address-class") classErrors.push_back(std::to_string(d.offset) + " " + d.message);
  // The unit DIE at 11, variables of 6 bytes from 12: class bytes at 17, 23, 29, 35, 41.
  ASSERT_EQ(classErrors.size(), 2u);
  EXPECT_EQ(classErrors[0].substr(0, 3), "23 ") << classErrors[0];
  EXPECT_NE(classErrors[0].find("8 ADDR_shared_space"), std::string::npos) << classErrors[0];
  EXPECT_EQ(classErrors[1].substr(0, 3), "41 ") << classErrors[1];
  EXPECT_NE(classErrors[1].find("6 ADDR_local_space"), std::string::npos) << classErrors[1];
}
