// Rules of `check` on hand-made modules, where a case needs a shape real
// producers do not write.
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "ptxdwarf/check/check.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/write/reencode.h"

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

// A section's round trip compared both ways: on the whole re-encoded image
// (compareImages), and as `check` does it, while re-encoding
// (preserveDifference); with the diagnostics each encoding gave.
struct BothWays {
  std::optional<write::ImageDifference> whole, streamed;
  size_t wholeDiagnostics = 0, streamedDiagnostics = 0;
};
BothWays compareBothWays(const read::Dwarf& dwarf, const SectionImage& s) {
  Diagnostics a, b;
  SectionImage again = write::encodePreserve(dwarf, s, a);
  BothWays both;
  both.whole = write::compareImages(std::span(&s, 1), std::span(&again, 1));
  both.streamed = write::preserveDifference(dwarf, s, b);
  both.wholeDiagnostics = a.items.size();
  both.streamedDiagnostics = b.items.size();
  return both;
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

// The first class an entry is judged against is kept in a byte by entry;
// classes past what a byte codes (253 and up) are kept in a set: judged
// once each all the same.
TEST(CheckLocations, ClassesPastAByteAreJudgedOnceToo) {
  const std::string text = sharedListVariables({253, 253, 252, 252, 255, 253, 5});
  ptx::ReadResult r = ptx::read(text, "shared.ptx");
  ASSERT_TRUE(r.ok());
  read::Dwarf dwarf = read::decode(r.module.sections);
  ASSERT_TRUE(dwarf.diagnostics.items.empty());
  std::vector<std::string> classErrors;
  for (const Diagnostic& d : check::run(r.module, dwarf).items)
    if (d.rule == "address-class") classErrors.push_back(std::to_string(d.offset));
  // Class bytes at 17, 23, 29, 35, 41, 47, 53: the first of 253, of 252 and of 255.
  EXPECT_EQ(classErrors, (std::vector<std::string>{"17", "29", "41"}));
}

// An expression is checked an operation at a time: the operations before one
// that does not decode are judged as well, and the failure is reported where
// the failing operation starts.
TEST(CheckLocations, OperationsBeforeOneThatDoesNotDecodeAreChecked) {
  // 1: compile_unit with children; 2: variable, location block1, address_class data1.
  std::string text = ".version 7.5\n.target sm_75\n.address_size 64\n";
  text += ".section .debug_abbrev {\n.b8 1, 17, 1, 0, 0, 2, 52, 0, 2, 10, 51, 11, 0, 0, 0\n}\n";
  // The variable at 12: its expression at 14, DW_OP_regx 5 (a number, not a
  // packed name), then at 16 a DW_OP_addr with 2 of its 8 bytes.
  text += ".section .debug_info {\n.b32 17\n.b8 2, 0\n.b32 0\n.b8 8, 1\n.b8 2, 5, 144, 5, 3, 1, 2, 2\n.b8 0\n}\n";
  ptx::ReadResult r = ptx::read(text, "t.ptx");
  ASSERT_TRUE(r.ok());
  read::Dwarf dwarf = read::decode(r.module.sections);
  ASSERT_TRUE(dwarf.diagnostics.items.empty());
  std::vector<std::string> found;
  for (const Diagnostic& d : check::run(r.module, dwarf).items)
    if (d.rule == "register-name" || d.rule == "expression") found.push_back(d.rule + " " + std::to_string(d.offset));
  EXPECT_EQ(found, (std::vector<std::string>{"register-name 14", "expression 16"}));
}

// The round trip `check` runs compares as it re-encodes (relocations referred
// to, not copied): it finds what comparing the whole re-encoded image finds,
// section by section, where the round trip holds and where it does not.
TEST(CheckRoundTrip, ComparedAsEncodedItSaysWhatTheImagesSay) {
  size_t differences = 0, relocated = 0;
  for (const char* fixture : {"chapter6.ptx", "producers/nvcc_G_locals_main.ptx", "producers/triton_matmul.ptx",
                              "faults/round_trip.ptx"}) {
    SCOPED_TRACE(fixture);
    ptx::ReadResult r = ptx::read(ptxdwarf::testsupport::readFixture(fixture), fixture);
    ASSERT_TRUE(r.ok());
    read::Dwarf dwarf = read::decode(r.module.sections);
    for (const SectionImage& s : r.module.sections) {
      const auto [whole, streamed, wholeDiagnostics, streamedDiagnostics] = compareBothWays(dwarf, s);
      ASSERT_EQ(whole.has_value(), streamed.has_value()) << s.name;
      EXPECT_EQ(wholeDiagnostics, streamedDiagnostics) << s.name;
      relocated += s.relocations.size();
      if (!whole) continue;
      ++differences;
      EXPECT_EQ(whole->section, streamed->section);
      EXPECT_EQ(whole->offset, streamed->offset);
      EXPECT_EQ(whole->message, streamed->message);
    }
  }
  EXPECT_GE(differences, 1u);  // the fault fixture's
  EXPECT_GE(relocated, 100u);
}

// .debug_loc is compared as it is re-encoded, without the image: bytes no
// list covers, a section longer than its lists, a relocation between lists
// and lists that overlap (compared through the image) are named as the
// image comparison names them.
TEST(CheckRoundTrip, LocationListsComparedAsWrittenSayWhatTheImageSays) {
  // Variables whose DW_AT_location (data4) names .debug_loc+offset, one each.
  auto module = [](const std::vector<int>& offsets, const std::string& loc) {
    std::string text = ".version 7.5\n.target sm_75\n.address_size 64\n.global .b32 g;\n";
    text += ".section .debug_abbrev {\n.b8 1, 17, 1, 0, 0, 2, 52, 0, 2, 6, 0, 0, 0\n}\n";
    text += ".section .debug_info {\n.b32 " + std::to_string(2 + 4 + 1 + 1 + 5 * offsets.size() + 1) +
            "\n.b8 2, 0\n.b32 0\n.b8 8, 1\n";
    for (int o : offsets) text += ".b8 2\n.b32 .debug_loc+" + std::to_string(o) + "\n";
    return text + ".b8 0\n}\n.section .debug_loc {\n" + loc + "}\n";
  };
  const std::string list = ".b64 0, 4\n.b8 1, 0, 48\n.b64 0, 0\n";  // 35 bytes
  const std::string addrList = ".b64 0, 4\n.b8 9, 0, 3\n.b64 g\n.b64 0, 0\n";          // 43 bytes
  const std::string relocatedAddrList = ".b64 g, g+4\n.b8 9, 0, 3\n.b64 g\n.b64 0, 0\n";  // 43 bytes
  struct Case {
    const char* what;
    std::string text;
    const char* message;  // of the difference; empty where the round trip holds
  };
  const Case cases[] = {
      {"two lists", module({0, 35}, list + list), ""},
      {"bytes between lists", module({0, 40}, list + ".b8 7, 7, 7, 7, 7\n" + list), "byte 7 re-encoded as 0"},
      {"bytes past the first 64, between lists", module({0, 35, 75}, list + list + ".b8 5, 5, 5, 5, 5\n" + list),
       "byte 5 re-encoded as 0"},
      {"bytes after the lists", module({0}, list + ".b8 9, 9\n"), "size 37 re-encoded as 35"},
      {"a relocation between lists", module({0, 43}, list + ".b64 g\n" + list), "relocation lost: g"},
      {"a list inside an entry of another", module({0, 8}, list), nullptr},
      // An expression's own relocation (DW_OP_addr g), after relocated
      // addresses or plain ones: the round trip keeps each.
      {"relocations in expressions", module({0, 43, 86}, addrList + relocatedAddrList + addrList), ""},
      {"a relocation in the last expression", module({0}, relocatedAddrList), ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    ptx::ReadResult r = ptx::read(c.text, "loc.ptx");
    ASSERT_TRUE(r.ok());
    read::Dwarf dwarf = read::decode(r.module.sections);
    ASSERT_NE(dwarf.loc, nullptr);
    const auto [whole, streamed, wholeDiagnostics, streamedDiagnostics] = compareBothWays(dwarf, *dwarf.loc);
    ASSERT_EQ(whole.has_value(), streamed.has_value());
    if (c.message) {
      ASSERT_EQ(whole.has_value(), *c.message != '\0');
      if (whole) {
        EXPECT_EQ(whole->message, c.message);
      }
    }
    if (!whole) continue;
    EXPECT_EQ(streamed->offset, whole->offset);
    EXPECT_EQ(streamed->message, whole->message);
  }
}

// A section is compared a 64 KB window at a time as it is re-encoded: a
// difference two windows in is found where the whole image's comparison
// finds it.
TEST(CheckRoundTrip, ADifferencePastTheFirstWindowsIsNamedAlike) {
  // 1: compile_unit (children), name string; 2: variable, name string;
  // 3: base_type, an attribute of form 127, which the decoder does not know.
  std::string text = ".version 7.5\n.target sm_75\n.address_size 64\n";
  text += ".section .debug_abbrev {\n.b8 1, 17, 1, 3, 8, 0, 0, 2, 52, 0, 3, 8, 0, 0, 3, 36, 0, 3, 127, 0, 0, 0\n}\n";
  std::string dies = ".b8 1\n.b8 99, 117, 0\n";  // "cu"
  const std::string name = ".b8 118, 97, 114, 105, 97, 98, 108, 101, 95, 119, 105, 116, 104, 95, 97, 95, "
                           "108, 111, 110, 103, 95, 110, 97, 109, 101, 0\n";  // "variable_with_a_long_name"
  constexpr size_t kVariables = 6000;  // 27 bytes each: 162 KB, past two windows
  for (size_t i = 0; i < kVariables; ++i) dies += ".b8 2\n" + name;
  dies += ".b8 3, 7, 7, 7\n.b8 0\n";
  const size_t length = 2 + 4 + 1 + 4 + kVariables * 27 + 4 + 1;
  text += ".section .debug_info {\n.b32 " + std::to_string(length) + "\n.b8 2, 0\n.b32 0\n.b8 8\n" + dies + "}\n";
  ptx::ReadResult r = ptx::read(text, "far.ptx");
  ASSERT_TRUE(r.ok());
  read::Dwarf dwarf = read::decode(r.module.sections);
  ASSERT_NE(dwarf.info, nullptr);
  ASSERT_EQ(dwarf.info->bytes.size(), length + 4);
  const auto [whole, streamed, wholeDiagnostics, streamedDiagnostics] = compareBothWays(dwarf, *dwarf.info);
  ASSERT_TRUE(whole.has_value());
  ASSERT_TRUE(streamed.has_value());
  EXPECT_GT(whole->offset, uint64_t{128} << 10);
  EXPECT_EQ(streamed->offset, whole->offset);
  EXPECT_EQ(streamed->message, whole->message);
  EXPECT_EQ(whole->message.rfind("byte ", 0), 0u) << whole->message;  // where the unknown form stopped the decoder
}

// Where the decoder stopped (an unknown form), the bytes it did not reach are
// written as zeros: a relocated operand there (zeros in the image too) is the
// first difference, and both comparisons name it alike.
TEST(CheckRoundTrip, ALostRelocationIsNamedAlike) {
  const std::string text =
      ".version 7.5\n.target sm_75\n.address_size 64\n.global .b32 g;\n"
      ".section .debug_abbrev {\n.b8 1, 17, 0, 19, 11, 3, 127, 0, 0, 0\n}\n"  // language data1, name of form 127
      ".section .debug_info {\n.b32 17\n.b8 2, 0\n.b32 0\n.b8 8, 1, 4\n.b64 g\n}\n";
  ptx::ReadResult r = ptx::read(text, "lost.ptx");
  ASSERT_TRUE(r.ok());
  read::Dwarf dwarf = read::decode(r.module.sections);
  ASSERT_FALSE(dwarf.diagnostics.items.empty());  // the unknown form
  const auto [whole, streamed, wholeDiagnostics, streamedDiagnostics] = compareBothWays(dwarf, *dwarf.info);
  ASSERT_TRUE(whole.has_value());
  ASSERT_TRUE(streamed.has_value());
  EXPECT_EQ(whole->message, "relocation lost: g");
  EXPECT_EQ(streamed->message, whole->message);
  EXPECT_EQ(streamed->offset, 13u);
  EXPECT_EQ(whole->offset, 13u);
}

namespace {

// Variables under one unit, each a DW_AT_location block and a
// DW_AT_address_class: `{"g", 5}` is DW_OP_addr of the .global `g`, `{"s",
// 8}` of the .shared `s`, `{"%r1", 2}` DW_OP_regx %r1. Each variable is 14
// bytes from 12 (an 11-byte expression, padded with DW_OP_nop); its class
// byte is the last.
std::string classedVariables(const std::vector<std::pair<std::string, int>>& vars) {
  std::string text = ".version 7.5\n.target sm_75\n.address_size 64\n.global .b32 g;\n.shared .b32 s;\n";
  // 1: compile_unit with children; 2: variable, location block1, address_class data1.
  text += ".section .debug_abbrev {\n.b8 1, 17, 1, 0, 0, 2, 52, 0, 2, 10, 51, 11, 0, 0, 0\n}\n";
  text += ".section .debug_info {\n.b32 " + std::to_string(7 + 1 + 14 * vars.size() + 1) + "\n.b8 2, 0\n.b32 0\n.b8 8, 1\n";
  for (const auto& [where, cls] : vars) {
    if (where.starts_with("%"))  // DW_OP_regx 0x257231 ('%r1'), then nops to 11 bytes
      text += ".b8 2, 11, 144, 177, 228, 149, 1, 150, 150, 150, 150, 150, 150\n";
    else
      text += ".b8 2, 11, 3\n.b64 " + where + "\n.b8 150, 150\n";
    text += ".b8 " + std::to_string(cls) + "\n";
  }
  return text + ".b8 0\n}\n";
}

// (offset, severity) of each address-class finding of `check`.
std::vector<std::string> classFindings(const std::string& text) {
  ptx::ReadResult r = ptx::read(text, "classes.ptx");
  EXPECT_TRUE(r.ok());
  read::Dwarf dwarf = read::decode(r.module.sections);
  EXPECT_TRUE(dwarf.diagnostics.items.empty());
  std::vector<std::string> found;
  for (const Diagnostic& d : check::run(r.module, dwarf).items)
    if (d.rule == "address-class")
      found.push_back(std::to_string(d.offset) + (d.severity == Severity::note ? " note" : " error"));
  return found;
}

}  // namespace

// The rule's table: 5 (or 12, generic, as LLVM 22 writes for address space
// 0) on a .global, 8 on a .shared, 2 on a register. A global's address is a
// valid generic address, so 12 there is a note; 12 on a register or a
// .shared, 5 on a .shared, are errors.
TEST(CheckLocations, GenericOnAGlobalIsANoteAndAWrongClassAnError) {
  // Class bytes at 25, 39, 53, ... (variables at 12 + 14k, class last).
  EXPECT_EQ(classFindings(classedVariables({{"g", 5}, {"s", 8}, {"%r1", 2}})), std::vector<std::string>{});
  EXPECT_EQ(classFindings(classedVariables({{"g", 12}})), (std::vector<std::string>{"25 note"}));
  EXPECT_EQ(classFindings(classedVariables({{"g", 12}, {"%r1", 12}, {"s", 12}, {"s", 5}, {"g", 8}})),
            (std::vector<std::string>{"25 note", "39 error", "53 error", "67 error", "81 error"}));
}

// References written as `.b64 .debug_info+N` (DW_FORM_ref_addr into another
// unit, as LLVM 19 and 22 write in a module of two units) are checked where
// they land; one relocated against a code label names no DIE.
TEST(CheckReferences, SymbolicReferencesIntoAnotherUnit) {
  auto refErrors = [](const std::string& target) {
    const std::string text =
        ".version 7.5\n.target sm_75\n.address_size 64\n"
        ".section .debug_abbrev {\n"
        ".b8 1, 17, 1, 0, 0, 2, 36, 0, 3, 8, 0, 0, 3, 52, 0, 73, 16, 0, 0, 0\n}\n"
        ".section .debug_info {\n"
        ".b32 14\n.b8 2, 0\n.b32 .debug_abbrev\n.b8 8\n.b8 1\n.b8 2, 105, 110, 116, 0\n.b8 0\n"  // 'int' at 12
        ".b32 18\n.b8 2, 0\n.b32 .debug_abbrev\n.b8 8\n.b8 1\n"
        ".b8 3\n.b64 " + target + "\n"  // at 30, value at 31
        ".b8 0\n}\n";
    ptx::ReadResult r = ptx::read(text, "refs.ptx");
    EXPECT_TRUE(r.ok());
    read::Dwarf dwarf = read::decode(r.module.sections);
    EXPECT_TRUE(dwarf.diagnostics.items.empty());
    std::vector<std::string> found;
    for (const Diagnostic& d : check::run(r.module, dwarf).items)
      if (d.rule == "ref-target" || d.rule == "round-trip") found.push_back(d.rule + " " + d.message);
    return found;
  };
  EXPECT_EQ(refErrors(".debug_info+12"), std::vector<std::string>{});
  const std::vector<std::string> inside = refErrors(".debug_info+13");
  ASSERT_EQ(inside.size(), 1u);
  EXPECT_NE(inside[0].find("refers to 0x0000000d, which is not the start of a DIE"), std::string::npos) << inside[0];
  const std::vector<std::string> code = refErrors("g");
  ASSERT_EQ(code.size(), 1u);
  EXPECT_NE(code[0].find("is 'g', not an offset into .debug_info"), std::string::npos) << code[0];
}
