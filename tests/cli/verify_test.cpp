// `ptxdump verify`: our decoder against LLVM's DebugInfo/DWARF and libdwarf.
// End to end on the fixtures and the real-producer corpus (all must agree), and
// compareViews on hand-altered views (the exact disagreement text), and a real
// byte change that LLVM's verifier catches.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "corpus.h"
#include "oracle.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/encode.h"
#include "ptxdwarf/write/ptx_writer.h"
#include "tools.h"

using ptxdwarf::testsupport::CommandResult;
using ptxdwarf::testsupport::readFile;
using ptxdwarf::testsupport::runCommand;
namespace dw = ptxdwarf::dw;
namespace ts = ptxdwarf::testsupport;

namespace {

const std::string kFixtures = PTXDWARF_FIXTURES;
const std::string kChapter6 = kFixtures + "/chapter6.ptx";
const std::string kEmptyPubnamesSet = kFixtures + "/verify/empty_pubnames_set.ptx";

CommandResult runPtxdump(std::vector<std::string> args) {
  args.insert(args.begin(), PTXDUMP_EXE);
  return runCommand(args);
}

size_t count(const std::string& text, std::string_view needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ptxdump_verify_" + std::to_string(getpid()) + "_" + name))
      .string();
}

#define REQUIRE_ORACLES()                                                            \
  do {                                                                               \
    if (!ptxdump::haveLlvmOracle() || !ptxdump::haveLibdwarfOracle())                \
      GTEST_SKIP() << "ptxdump-verify was built without LLVM DebugInfo or libdwarf"; \
  } while (0)

// A PTX file read and decoded, with the three views of it.
struct Views {
  std::string text;
  ptxdwarf::ptx::ReadResult read;
  ptxdwarf::read::Dwarf dwarf;
  std::vector<ptxdwarf::SectionImage> linked;
  ptxdump::OracleView ours, llvm, libdwarf;
};

std::unique_ptr<Views> views(const std::string& path) {
  auto v = std::make_unique<Views>();
  v->text = *readFile(path);
  v->read = ptxdwarf::ptx::read(v->text, path);
  EXPECT_TRUE(v->read.ok());
  v->dwarf = ptxdwarf::read::decode(v->read.module.sections);
  ptxdump::Linker linker(v->read.module.sections, &v->read.module);
  v->linked = linker.link();
  v->ours = ptxdump::ourView(v->dwarf, linker);
  std::string error;
  std::optional<ptxdump::OracleView> llvm = ptxdump::llvmView(v->linked, &error);
  std::optional<ptxdump::OracleView> libdwarf = ptxdump::libdwarfView(v->linked, &error);
  EXPECT_TRUE(llvm && libdwarf) << error;
  if (llvm) v->llvm = std::move(*llvm);
  if (libdwarf) v->libdwarf = std::move(*libdwarf);
  return v;
}

ptxdump::OracleDie& dieAt(ptxdump::OracleView& v, uint64_t offset) {
  auto it = std::find_if(v.dies.begin(), v.dies.end(), [&](const ptxdump::OracleDie& d) { return d.offset == offset; });
  EXPECT_NE(it, v.dies.end()) << offset;
  return *it;
}

ptxdump::OracleAttr& attrOf(ptxdump::OracleDie& d, uint16_t name) {
  auto it = std::find_if(d.attrs.begin(), d.attrs.end(), [&](const ptxdump::OracleAttr& a) { return a.name == name; });
  EXPECT_NE(it, d.attrs.end()) << name;
  return *it;
}

// `text` with the decimal operand that wrote byte `offset` of `section` replaced by `value`.
std::string withOperand(const std::string& text, const ptxdwarf::SectionImage& section, uint64_t offset,
                        uint64_t value) {
  ptxdwarf::SourceLoc loc = section.locate(offset);
  size_t pos = 0;
  for (uint32_t line = 1; line < loc.line; ++line) pos = text.find('\n', pos) + 1;
  pos += loc.col - 1;
  size_t end = pos;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  EXPECT_GT(end, pos) << "no number at " << loc.line << ":" << loc.col;
  return text.substr(0, pos) + std::to_string(value) + text.substr(end);
}

}  // namespace

TEST(PtxdumpVerify, Chapter6AgreesWithBothOracles) {
  REQUIRE_ORACLES();
  CommandResult r = runPtxdump({"verify", "--with", "all", kChapter6});
  EXPECT_EQ(r.exitCode, 0) << r.err << r.out;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find(kChapter6 + ": llvm: 1 unit, 9 DIEs, 48 attributes, 0 location lists, 2 names, 0 ranges "
                                   "compared; all agree\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(kChapter6 + ": libdwarf: 1 unit, 9 DIEs, 48 attributes, 0 location lists, 2 names, 0 ranges "
                                   "compared; all agree\n"),
            std::string::npos)
      << r.out;
  // What the oracles were shown instead of raw zeros is said, not hidden.
  EXPECT_NE(r.out.find("note: the oracles read the sections as a linker leaves them: 8 symbolic operands"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("a .debug_line with the PTX .file table and no rows stands in"), std::string::npos) << r.out;
  // What libdwarf cannot show is said, once per file; LLVM shows all of it.
  EXPECT_NE(r.out.find(kChapter6 + ": libdwarf: could not compare: 3 NULL entries (libdwarf lists none)\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(count(r.out, "could not compare"), 1u) << r.out;
}

// Issue 43, item 4: a .debug_pubnames set with a header and no names. libdwarf
// reports names (each with its set's header), so it cannot see that set: not a
// disagreement, but said. LLVM reads set headers and compares it.
TEST(PtxdumpVerify, EmptyPubnamesSetIsComparedOnlyWhereTheOracleSeesIt) {
  REQUIRE_ORACLES();
  CommandResult r = runPtxdump({"verify", "--with", "all", kEmptyPubnamesSet});
  EXPECT_EQ(r.exitCode, 0) << r.err << r.out;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find(kEmptyPubnamesSet + ": llvm: 1 unit, 9 DIEs, 48 attributes, 0 location lists, 0 names, "
                                           "0 ranges compared; all agree\n" +
                       kEmptyPubnamesSet + ": libdwarf: 1 unit, 9 DIEs, 48 attributes, 0 location lists, 0 names, "
                                           "0 ranges compared; all agree\n" +
                       kEmptyPubnamesSet + ": libdwarf: could not compare: 3 NULL entries (libdwarf lists none); "
                                           "1 .debug_pubnames set with no names (libdwarf sees a set only through "
                                           "its names)\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(count(r.out, ": llvm: could not compare"), 0u) << r.out;
}

TEST(PtxdumpVerify, EmptyPubnamesSetHeaderIsStillComparedWithLlvm) {
  REQUIRE_ORACLES();
  auto v = views(kEmptyPubnamesSet);
  ASSERT_EQ(v->ours.nameSets.size(), 1u);
  EXPECT_EQ(v->ours.nameSets[0].names, 0u);
  EXPECT_EQ(v->ours.nameSets[0].length, 14u);
  ASSERT_EQ(v->llvm.nameSets.size(), 1u);
  EXPECT_EQ(v->llvm.nameSets[0].names, 0u);
  EXPECT_TRUE(v->libdwarf.nameSets.empty());
  ptxdump::Comparison withLibdwarf = ptxdump::compare(v->ours, v->libdwarf, "libdwarf");
  EXPECT_EQ(withLibdwarf.disagreements, std::vector<std::string>{});
  EXPECT_EQ(withLibdwarf.notCompared,
            (std::vector<std::string>{"3 NULL entries (libdwarf lists none)",
                                      "1 .debug_pubnames set with no names (libdwarf sees a set only through its "
                                      "names)"}));
  // The empty set is a set for LLVM: a header field changed is a disagreement,
  // and so is the set missing.
  v->llvm.nameSets[0].infoLength = 0x107;
  EXPECT_EQ(ptxdump::compareViews(v->ours, v->llvm, "llvm"),
            std::vector<std::string>{".debug_pubnames set 0: unit length: ours 0x106, llvm 0x107"});
  v->llvm.nameSets.clear();
  EXPECT_EQ(ptxdump::compareViews(v->ours, v->llvm, "llvm"),
            std::vector<std::string>{".debug_pubnames: sets: ours 1, llvm 0"});
  // A set with names that libdwarf misses is still a disagreement.
  v->ours.nameSets[0].names = 1;
  EXPECT_EQ(ptxdump::compareViews(v->ours, v->libdwarf, "libdwarf"),
            std::vector<std::string>{".debug_pubnames: sets: ours 1, libdwarf 0"});
}

// Location lists as libdwarf 20210528 gives them: ranges with their offsets, no
// end entries and no expression bytes. What it lacks is counted, not compared.
TEST(PtxdumpVerify, WhatLibdwarfCannotShowOfLocationListsIsSaid) {
  REQUIRE_ORACLES();
  const std::string path = kFixtures + "/producers/nvcc_G_locals_main.ptx";
  CommandResult r = runPtxdump({"verify", "--with", "all", path});
  EXPECT_EQ(r.exitCode, 0) << r.err << r.out;
  EXPECT_NE(r.out.find(path + ": libdwarf: 1 unit, 176 DIEs, 431 attributes, 5 location lists, 0 names, 0 ranges "
                              "compared; all agree\n" +
                       path + ": libdwarf: could not compare: 13 NULL entries (libdwarf lists none); 5 location "
                              "list end entries (libdwarf lists none); 29 location list expressions (libdwarf gives "
                              "no expression bytes)\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(count(r.out, ": llvm: could not compare"), 0u) << r.out;
}

TEST(PtxdumpVerify, OneOracleAtATime) {
  REQUIRE_ORACLES();
  CommandResult llvm = runPtxdump({"verify", "--with", "llvm", kChapter6});
  EXPECT_EQ(llvm.exitCode, 0) << llvm.err;
  EXPECT_EQ(count(llvm.out, ": llvm: "), 1u);
  EXPECT_EQ(count(llvm.out, ": libdwarf: "), 0u);
  CommandResult libdwarf = runPtxdump({"verify", "--with", "libdwarf", kChapter6});
  EXPECT_EQ(libdwarf.exitCode, 0) << libdwarf.err;
  EXPECT_EQ(count(libdwarf.out, ": libdwarf: 1 unit, "), 1u);
  EXPECT_EQ(count(libdwarf.out, ": libdwarf: could not compare: "), 1u);
  EXPECT_EQ(count(libdwarf.out, ": llvm: "), 0u);
}

TEST(PtxdumpVerify, UnreadableFileExits2) {
  CommandResult r = runPtxdump({"verify", kFixtures + "/no_such_file.ptx"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("no_such_file.ptx: error: cannot read file"), std::string::npos) << r.err;
  CommandResult bad = runPtxdump({"verify", "--with", "nothing", kChapter6});
  EXPECT_EQ(bad.exitCode, 2);
}

// `ptxdump verify` is ptxdump-verify, run with the same arguments; ptxdump itself
// only lists it.
TEST(PtxdumpVerify, RunsPtxdumpVerify) {
  CommandResult help = runPtxdump({"--help"});
  EXPECT_EQ(help.exitCode, 0) << help.err;
  EXPECT_NE(help.out.find("\n  verify "), std::string::npos) << help.out;
  CommandResult verifyHelp = runPtxdump({"verify", "--help"});
  EXPECT_EQ(verifyHelp.exitCode, 0) << verifyHelp.err;
  EXPECT_NE(verifyHelp.out.find("Usage: ptxdump-verify [OPTIONS] files..."), std::string::npos) << verifyHelp.out;
  EXPECT_NE(verifyHelp.out.find("--with"), std::string::npos) << verifyHelp.out;
  CommandResult noFiles = runPtxdump({"verify"});
  EXPECT_EQ(noFiles.exitCode, 2);
  EXPECT_NE(noFiles.err.find("files is required"), std::string::npos) << noFiles.err;
}

// A ptxdump with no ptxdump-verify beside it or on PATH says what is missing.
TEST(PtxdumpVerify, MissingPtxdumpVerifyExits2) {
  std::filesystem::path dir = tempPath("alone");
  std::filesystem::create_directories(dir);
  std::filesystem::path exe = std::filesystem::canonical(dir) / "ptxdump";
  std::filesystem::copy_file(PTXDUMP_EXE, exe, std::filesystem::copy_options::overwrite_existing);
  CommandResult r = runCommand({"env", "PATH=" + dir.string(), exe.string(), "verify", kChapter6});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  std::string want =
      "ptxdump: error: verify needs ptxdump-verify (LLVM DebugInfo and libdwarf oracles), not found next to ";
  EXPECT_EQ(r.err, want + exe.string() + " or on PATH\n");
  EXPECT_EQ(r.out, "");
  std::filesystem::remove_all(dir);
}

// Every corpus entry that is ready (nvcc and clang output of fixtures/corpus/*.cu,
// fixtures/variants/*.ptx and chapter6 that ptxas accepts): both oracles agree with us.
TEST(PtxdumpVerify, CorpusAgreesWithBothOracles) {
  REQUIRE_ORACLES();
  std::vector<std::string> files;
  std::vector<std::string> skipped;
  for (const ts::CorpusEntry& entry : ts::corpusEntries()) {
    if (entry.expectPtxasFailure) continue;  // split_blocks: ptxas rejects it
    // LLVM 19/22 output: LLVM 14's verifier reports LLVM 22's location lists
    // (no unit low_pc) as "Base address not defined"; what verify compares
    // there is issue 43 section 4's (the oracle build), not yet here.
    if (ts::llvmVersion(entry.producer) != 0) continue;
    ts::PreparedEntry p = ts::prepare(entry);
    if (p.status != ts::PreparedEntry::Status::ready) {
      skipped.push_back(entry.id + ": " + p.message);
      continue;
    }
    files.push_back(p.ptxPath);
  }
  for (const std::string& s : skipped) std::printf("skipped %s\n", s.c_str());
  if (files.empty()) GTEST_SKIP() << "no corpus entry is ready (nvcc, clang or ptxas missing?)";
  std::vector<std::string> args{"verify", "--with", "all"};
  args.insert(args.end(), files.begin(), files.end());
  CommandResult r = runPtxdump(args);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(count(r.out, "compared; all agree\n"), 2 * files.size()) << r.out;
  // Not a vacuous agreement: the nvcc output has location lists and pubnames.
  EXPECT_NE(r.out.find("loclists_nvcc_sm_90.ptx: llvm: 1 unit, 31 DIEs, 145 attributes, 5 location lists"),
            std::string::npos)
      << r.out;
}

TEST(PtxdumpVerify, SameViewsAgree) {
  REQUIRE_ORACLES();
  auto v = views(kChapter6);
  EXPECT_EQ(ptxdump::compareViews(v->ours, v->llvm, "llvm"), std::vector<std::string>{});
  EXPECT_EQ(ptxdump::compareViews(v->ours, v->libdwarf, "libdwarf"), std::vector<std::string>{});
  EXPECT_EQ(v->ours.dies.size(), 12u);  // 9 DIEs and the 3 NULL entries that close children
  EXPECT_EQ(v->llvm.dies.size(), 12u);
  EXPECT_EQ(v->libdwarf.dies.size(), 9u);  // libdwarf shows no NULL entries
}

TEST(PtxdumpVerify, CompareViewsNamesAlteredValues) {
  REQUIRE_ORACLES();
  auto v = views(kChapter6);
  // An attribute value changed on LLVM's side.
  attrOf(dieAt(v->llvm, 0x45), dw::DW_AT_name).string = "y";
  // A tag changed on ours.
  dieAt(v->ours, 0xa4).tag = dw::DW_TAG_pointer_type;
  // A reference, a block byte and a unit header field.
  attrOf(dieAt(v->llvm, 0x77), dw::DW_AT_type).u64 = 0xa5;
  attrOf(dieAt(v->llvm, 0x8d), dw::DW_AT_location).bytes[2] = 0xb2;
  v->llvm.units[0].abbrevOffset = 4;
  EXPECT_EQ(ptxdump::compareViews(v->ours, v->llvm, "llvm"),
            (std::vector<std::string>{
                ".debug_info+0x0: unit abbreviation offset: ours 0x0, llvm 0x4",
                ".debug_info+0x45: DW_AT_name: ours \"_Z3fooii\", llvm \"y\"",
                ".debug_info+0x77: DW_AT_type: ours 0xa4, llvm 0xa5",
                ".debug_info+0x8d: DW_AT_location: ours <90 b2 e4 95 01>, llvm <90 b2 b2 95 01>",
                ".debug_info+0xa4: tag: ours DW_TAG_pointer_type, llvm DW_TAG_base_type",
            }));
  // A missing DIE, an extra attribute, and a message of the oracle.
  v->libdwarf.dies.erase(v->libdwarf.dies.begin() + 1);  // 0x45
  attrOf(dieAt(v->libdwarf, 0xae), dw::DW_AT_name).form = dw::DW_FORM_strp;
  v->libdwarf.dies.back().attrs.push_back({dw::DW_AT_byte_size, dw::DW_FORM_data1, ptxdump::AttrKind::constant, 8});
  v->libdwarf.messages.push_back("error: something");
  std::vector<std::string> diffs = ptxdump::compareViews(v->ours, v->libdwarf, "libdwarf");
  EXPECT_EQ(diffs, (std::vector<std::string>{
                       ".debug_info+0x45: DIE: ours DW_TAG_subprogram, libdwarf none",
                       ".debug_info+0xa4: tag: ours DW_TAG_pointer_type, libdwarf DW_TAG_base_type",
                       ".debug_info+0xae: DW_AT_name form: ours DW_FORM_string, libdwarf DW_FORM_strp",
                       ".debug_info+0x103: attribute count: ours 2, libdwarf 3 (DW_AT_byte_size)",
                       "libdwarf reports: error: something",
                   }));
}

// DW_AT_type of the parameter at 0x77 pointed one byte into the base type DIE at
// 0xa4: every reader decodes the same value (no disagreement on the value), but
// LLVM's verifier finds the reference invalid, and verify says so and exits 1.
TEST(PtxdumpVerify, ReferenceIntoTheMiddleOfADieIsReported) {
  REQUIRE_ORACLES();
  std::string text = *readFile(kChapter6);
  ptxdwarf::ptx::ReadResult read = ptxdwarf::ptx::read(text, kChapter6);
  ptxdwarf::read::Dwarf dwarf = ptxdwarf::read::decode(read.module.sections);
  const ptxdwarf::read::Die* param = dwarf.dieAt(0x77);
  ASSERT_NE(param, nullptr);
  std::optional<ptxdwarf::read::AttrValue> type = dwarf.attribute(*param, dw::DW_AT_type);
  ASSERT_TRUE(type.has_value());
  ASSERT_EQ(type->value, 0xa4u);
  std::string path = tempPath("ref_mid_die.ptx");
  ASSERT_TRUE(ts::writeFile(path, withOperand(text, *dwarf.info, type->offset, 0xa5)));
  CommandResult r = runPtxdump({"verify", "--with", "all", path});
  EXPECT_EQ(r.exitCode, 1) << r.err << r.out;
  EXPECT_NE(r.err.find(path + ": verify[llvm]: llvm reports: verifier: error: invalid DIE reference 0x000000a5"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(count(r.err, "\n"), 1u) << r.err;  // that finding, and no disagreement on values
  EXPECT_NE(r.out.find(path + ": llvm: 1 unit, 9 DIEs, 48 attributes, 0 location lists, 2 names, 0 ranges compared; "
                              "1 disagreement\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(path + ": libdwarf: 1 unit, 9 DIEs, 48 attributes, 0 location lists, 2 names, 0 ranges "
                              "compared; all agree\n"),
            std::string::npos)
      << r.out;
  std::filesystem::remove(path);
}

// A .debug_pubnames set length that ends the set inside its second name: LLVM and
// libdwarf read the set by its length (and fail on it), our decoder reads entries up
// to the 0 terminator and keeps both names. A genuine difference in reading the
// same bytes, and verify names it.
TEST(PtxdumpVerify, PubnamesSetLengthShorterThanTheEntries) {
  REQUIRE_ORACLES();
  std::string text = *readFile(kChapter6);
  size_t at = text.find(".section .debug_pubnames {\n.b32 41\n");
  ASSERT_NE(at, std::string::npos);
  text.replace(text.find(".b32 41", at), 7, ".b32 30");
  std::string path = tempPath("pubnames_length.ptx");
  ASSERT_TRUE(ts::writeFile(path, text));
  CommandResult r = runPtxdump({"verify", "--with", "all", path});
  EXPECT_EQ(r.exitCode, 1) << r.err << r.out;
  EXPECT_EQ(r.err, path + ": verify[llvm]: .debug_pubnames: sets: ours 1, llvm 2\n" +
                   path + ": verify[llvm]: .debug_pubnames: entries: ours 2, llvm 1\n" +
                   path + ": verify[llvm]: llvm reports: error: name lookup table at offset 0x0 parsing failed: no "
                          "null terminated string at offset 0x1f\n" +
                   path + ": verify[llvm]: llvm reports: error: name lookup table at offset 0x22 does not have a "
                          "complete header: unexpected end of data at offset 0x2d while reading [0x2c, 0x30)\n" +
                   path + ": verify[libdwarf]: .debug_pubnames: sets: ours 1, libdwarf 0\n" +
                   path + ": verify[libdwarf]: .debug_pubnames: entries: ours 2, libdwarf 0\n" +
                   path + ": verify[libdwarf]: libdwarf reports: error: .debug_pubnames: DW_DLE_PUBNAMES_LENGTH_BAD (124)\n");
  std::filesystem::remove(path);
}

// Issue 15, item 1: an oracle that crashes on broken input is contained (it
// runs in a child process) and reported as a finding of that file; verify goes
// on to the other oracle and the next file, and exits 1, never by a signal.
void expectContainedCrash(const std::string& path, const std::string& with = "all") {
  CommandResult r = runPtxdump({"verify", "--with", with, path, kChapter6});
  EXPECT_EQ(r.exitCode, 1) << r.err << r.out;
  // "(signal 11, Segmentation fault)"; under a sanitizer, whose handler exits instead, "(exit status 1, ...)".
  EXPECT_TRUE(std::regex_search(r.err, std::regex(": verify\\[llvm\\]: llvm crashed \\((signal 11, Segmentation "
                                                  "fault|exit status [0-9]+, no answer)\\) reading these sections")))
      << r.err;
  EXPECT_NE(r.err.find(path + ": verify[llvm]: llvm crashed ("), std::string::npos) << r.err;
  EXPECT_NE(r.out.find(path + ": llvm: crashed; nothing compared\n"), std::string::npos) << r.out;
  if (with == "all") {  // the other oracle still ran
    EXPECT_NE(r.out.find(path + ": libdwarf: "), std::string::npos) << r.out;
  }
  EXPECT_NE(r.out.find(kChapter6 + ": llvm: 1 unit, 9 DIEs"), std::string::npos) << r.out;  // and the next file
}

TEST(PtxdumpVerifyContainment, BlockPastTheUnitEnd) {
  REQUIRE_ORACLES();
  expectContainedCrash(kFixtures + "/faults/block_bounds.ptx");
}

TEST(PtxdumpVerifyContainment, UndefinedAbbreviationCode) {
  REQUIRE_ORACLES();
  expectContainedCrash(kFixtures + "/faults/abbrev_code.ptx");
}

// 25,000 nested lexical blocks: LLVM's verifyDieRanges recurses once per level.
// (libdwarf reads this tree correctly but takes ~7 s, so only LLVM runs here.)
TEST(PtxdumpVerifyContainment, DeepDieTree) {
  REQUIRE_ORACLES();
  constexpr int kDepth = 25000;
  std::string info = ".b8 1";  // the unit DIE: abbreviation 1
  for (int i = 0; i < kDepth; ++i) info += i % 32 == 0 ? "\n.b8 2" : ", 2";
  for (int i = 0; i <= kDepth; ++i) info += i % 32 == 0 ? "\n.b8 0" : ", 0";  // the NULLs closing each level
  const size_t unitLength = 7 + 1 + 2u * kDepth + 1;
  std::string text = ".version 7.0\n.target sm_75\n.address_size 64\n\n.section .debug_info\n{\n.b32 " +
                     std::to_string(unitLength) + "\n.b8 2, 0\n.b32 .debug_abbrev\n.b8 8\n" + info +
                     "\n}\n.section .debug_abbrev\n{\n.b8 1, 17, 1, 0, 0, 2, 11, 1, 0, 0, 0\n}\n";
  std::string path = tempPath("deep_tree.ptx");
  ASSERT_TRUE(ts::writeFile(path, text));
  CommandResult check = runPtxdump({"check", path});  // the input itself is well formed
  EXPECT_EQ(check.exitCode, 0) << check.err;
  expectContainedCrash(path, "llvm");
  std::filesystem::remove(path);
}

// Issue 14, item 1: sibling lexical blocks that overlap (nvcc -G writes such for
// CUB code) are a fact about the input that check reports (scope-overlap) and
// LLVM's verifier reports too: the same finding, not a disagreement.
TEST(PtxdumpVerify, OverlappingScopesAreNotADisagreement) {
  REQUIRE_ORACLES();
  using namespace ptxdwarf::write;
  Builder b;
  b.compileUnit({.name = "k.cu", .stmtList = false});
  DieId k = b.subprogram({.name = "k", .linkageName = "k", .lowPc = SymbolRef{"k_begin"}, .highPc = SymbolRef{"k_end"}});
  b.lexicalBlock(k, {"$L1"}, {"$L3"});
  b.lexicalBlock(k, {"$L2"}, {"$L4"});
  ptxdwarf::Diagnostics diags;
  std::string text = ".version 7.5\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<3>;\n"
                     "k_begin:\n$L1:\n\tmov.b32 %r1, 1;\n$L2:\n\tmov.b32 %r1, 2;\n$L3:\n\tmov.b32 %r1, 3;\n$L4:\n"
                     "\tret;\nk_end:\n}\n" +
                     writeSections(encode(b.unit(), {}, diags), {.version = {7, 5, true}}, diags);
  ASSERT_FALSE(diags.hasErrors());
  std::string path = tempPath("overlap.ptx");
  ASSERT_TRUE(ts::writeFile(path, text));
  CommandResult r = runPtxdump({"verify", "--with", "llvm", path});
  EXPECT_EQ(r.exitCode, 0) << r.err << r.out;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find(path + ": llvm: 1 unit, 4 DIEs, 13 attributes, 0 location lists, 1 name, 0 ranges compared; "
                              "all agree\n" +
                       path + ": 1 sibling scope overlaps in the PTX (check: scope-overlap); LLVM's verifier "
                              "reporting it finds the same fact, not a disagreement\n"),
            std::string::npos)
      << r.out;
  std::filesystem::remove(path);
}

// Issue 14, item 1: libdwarf 20210528 gives a pubnames set's length modulo 256
// (it keeps it in an unsigned char); nvcc's sm_100 CUB output has a 0x164f-byte
// set, which libdwarf reports as 0x4f. That is compared in libdwarf's 8 bits;
// LLVM's view keeps all 64.
TEST(PtxdumpVerify, LibdwarfPubnamesLengthIsComparedInItsEightBits) {
  REQUIRE_ORACLES();
  auto v = views(kChapter6);
  ASSERT_EQ(v->libdwarf.nameSetLengthBits, 8u);
  ASSERT_FALSE(v->ours.nameSets.empty());
  v->ours.nameSets[0].length = 0x164f;
  v->libdwarf.nameSets[0].length = 0x4f;
  ptxdump::Comparison c = ptxdump::compare(v->ours, v->libdwarf, "libdwarf");
  EXPECT_EQ(c.disagreements, std::vector<std::string>{});
  EXPECT_EQ(std::count(c.notCompared.begin(), c.notCompared.end(),
                       "1 .debug_pubnames set length past its low 8 bits (libdwarf keeps 8)"),
            1)
      << ::testing::PrintToString(c.notCompared);
  v->libdwarf.nameSets[0].length = 0x50;
  EXPECT_EQ(ptxdump::compareViews(v->ours, v->libdwarf, "libdwarf"),
            std::vector<std::string>{".debug_pubnames set 0: length (low 8 bits): ours 0x4f, libdwarf 0x50"});
  v->llvm.nameSets[0].length = 0x4f;  // LLVM gives every bit
  EXPECT_EQ(ptxdump::compareViews(v->ours, v->llvm, "llvm"),
            std::vector<std::string>{".debug_pubnames set 0: length: ours 0x164f, llvm 0x4f"});
}
