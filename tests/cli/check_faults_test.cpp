// `ptxdump check` on seeded faults: each fixture in fixtures/faults is the
// Chapter 6 example with one mistake (see fixtures/faults/generate.py). Check
// must exit 1 and report the rule at the PTX line of the mistake. Faults
// seeded into nvcc output (generated at test time) follow.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "corpus.h"
#include "tools.h"

using namespace ptxdwarf::testsupport;

namespace {

const std::string kFixtures = PTXDWARF_FIXTURES;

CommandResult check(const std::string& path, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {PTXDUMP_EXE, "check", path};
  args.insert(args.end(), extra.begin(), extra.end());
  return runCommand(args);
}

// A diagnostic line `path:LINE:COL: error: ... [rule] (...)` is in `err`.
bool reports(const std::string& err, const std::string& path, int line, const std::string& rule,
             const std::string& severity = "error") {
  std::string prefix = path + ":" + std::to_string(line) + ":";
  size_t pos = 0;
  while ((pos = err.find(prefix, pos)) != std::string::npos) {
    size_t end = err.find('\n', pos);
    std::string diag = err.substr(pos, end - pos);
    if (diag.find(": " + severity + ": ") != std::string::npos && diag.find("[" + rule + "]") != std::string::npos)
      return true;
    pos = end;
  }
  return false;
}

struct Fault {
  const char* file;
  const char* rule;
  int line;
};

class SeededFault : public testing::TestWithParam<Fault> {};

TEST_P(SeededFault, CheckReportsTheRuleAtTheLine) {
  std::string path = kFixtures + "/faults/" + GetParam().file;
  CommandResult r = check(path);
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_TRUE(reports(r.err, path, GetParam().line, GetParam().rule)) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Chapter6, SeededFault,
    testing::Values(Fault{"unit_length.ptx", "unit-length", 53}, Fault{"unit_version.ptx", "unit-version", 54},
                    Fault{"unit_address_size.ptx", "unit-address-size", 56},
                    Fault{"abbrev_code.ptx", "abbrev-code", 83},
                    Fault{"abbrev_terminated.ptx", "abbrev-terminated", 93},
                    Fault{"children_terminated.ptx", "children-terminated", 56},
                    Fault{"form_version.ptx", "form-version", 89}, Fault{"block_bounds.ptx", "block-bounds", 67},
                    Fault{"ref_target.ptx", "ref-target", 63}, Fault{"type_target.ptx", "type-target", 68},
                    Fault{"pubnames_entry.ptx", "pubnames-entry", 99},
                    Fault{"pubnames_header.ptx", "pubnames-header", 99},
                    Fault{"symbol_defined.ptx", "symbol-defined", 66},
                    Fault{"address_class.ptx", "address-class", 83},
                    Fault{"register_undeclared.ptx", "register-name", 69},
                    Fault{"register_unpacked.ptx", "register-name", 71}, Fault{"decl_file.ptx", "decl-file", 63},
                    Fault{"subprogram_pc.ptx", "subprogram-pc", 77}, Fault{"stmt_list.ptx", "stmt-list", 59},
                    Fault{"section_label_version.ptx", "section-label-version", 53},
                    Fault{"negative_version.ptx", "label-difference-version", 79},
                    Fault{"pc_range.ptx", "pc-range", 66}, Fault{"round_trip.ptx", "round-trip", 89},
                    Fault{"ptxas_form_exprloc.ptx", "ptxas-form", 90},
                    Fault{"ptxas_form_sec_offset.ptx", "ptxas-form", 89},
                    Fault{"ptxas_form_ref_addr.ptx", "ptxas-form", 90}),
    [](const testing::TestParamInfo<Fault>& info) {
      std::string n = info.param.file;
      return n.substr(0, n.find('.'));
    });

TEST(CheckChapter6, ExactlyTheLinkageNameWarning) {
  std::string path = kFixtures + "/chapter6.ptx";
  CommandResult r = check(path);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(reports(r.err, path, 61, "linkage-name", "warning")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;  // the warning and the pubnames note
  EXPECT_NE(r.err.find("(the PTX defines '_Z3fooi')"), std::string::npos);
  EXPECT_EQ(r.out, path + ": 0 errors, 1 warning\n");
  CommandResult strict = check(path, {"--werror"});
  EXPECT_EQ(strict.exitCode, 1);
  EXPECT_TRUE(reports(strict.err, path, 61, "linkage-name", "error")) << strict.err;
}

TEST(CheckJobs, ParallelCheckReportsLikeSequential) {
  std::vector<std::string> files;
  for (const char* f : {"chapter6.ptx", "faults/unit_length.ptx", "faults/address_class.ptx", "faults/decl_file.ptx",
                        "faults/stmt_list.ptx"})
    files.push_back(kFixtures + "/" + f);
  std::vector<std::string> sequential = {PTXDUMP_EXE, "check"}, parallel = {PTXDUMP_EXE, "check", "-j", "3"};
  sequential.insert(sequential.end(), files.begin(), files.end());
  parallel.insert(parallel.end(), files.begin(), files.end());
  CommandResult a = runCommand(sequential), b = runCommand(parallel);
  EXPECT_EQ(a.exitCode, 1);
  EXPECT_EQ(b.exitCode, 1);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.err, b.err);
  EXPECT_NE(a.out.find("total: 5 files, 5 errors, 5 warnings"), std::string::npos) << a.out;
}

// Faults in real nvcc output: the corpus file is compiled, one thing in it is
// broken by text replacement, and check must point at it.
std::string seeded(const std::string& id, const std::regex& what, const std::string& with, std::string* skip) {
  for (const CorpusEntry& e : corpusEntries()) {
    if (e.id != id) continue;
    PreparedEntry p = prepare(e);
    if (p.status != PreparedEntry::Status::ready) {
      *skip = p.message;
      return {};
    }
    std::string text = *readFile(p.ptxPath);
    std::smatch m;
    if (!std::regex_search(text, m, what)) return {};
    text.replace(static_cast<size_t>(m.position(0)), static_cast<size_t>(m.length(0)), with);
    std::string out = (std::filesystem::temp_directory_path() /
                       ("ptxdwarf_fault_" + std::to_string(getpid()) + "_" + id + ".ptx")).string();
    writeFile(out, text);
    return out;
  }
  *skip = "no corpus entry " + id;
  return {};
}

TEST(CheckNvccFaults, LocationListOffsetIntoTheMiddleOfAList) {
  std::string skip;
  std::string path = seeded("loclists_nvcc_sm_90", std::regex(R"(\.b32 \.debug_loc\+(\d+))"), ".b32 .debug_loc+1",
                            &skip);
  if (path.empty()) GTEST_SKIP() << skip;
  CommandResult r = check(path);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("[loclist-offset]"), std::string::npos) << r.err;
  std::filesystem::remove(path);
}

TEST(CheckNvccFaults, UndefinedLabelInARange) {
  std::string skip;
  std::string path = seeded("loclists_nvcc_sm_90", std::regex(R"(\.b64 \$L__tmp(\d+))"), ".b64 $L__nowhere", &skip);
  if (path.empty()) GTEST_SKIP() << skip;
  CommandResult r = check(path);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("'$L__nowhere' is not defined in this PTX file"), std::string::npos) << r.err;
  std::filesystem::remove(path);
}

TEST(CheckNvccFaults, CleanCorpusFilesPass) {
  int checked = 0;
  for (const CorpusEntry& e : corpusEntries()) {
    if (e.producer == Producer::fixture) continue;
    // LLVM 19/22 output has notes (class 12 on globals) and LLVM 19 a fault of
    // its own: tests/corpus/llvm_versions_test.cpp checks it.
    if (llvmVersion(e.producer) != 0) continue;
    PreparedEntry p = prepare(e);
    if (p.status != PreparedEntry::Status::ready) continue;
    CommandResult r = check(p.ptxPath);
    EXPECT_EQ(r.exitCode, 0) << e.id << "\n" << r.err;
    // Nothing but notes that nvcc's CUB lexical blocks overlap (a fact of the
    // producer's output, which LLVM's verifier reports too).
    std::string other = std::regex_replace(r.err, std::regex(".*: note: .* \\[scope-overlap\\] .*\n"), "");
    EXPECT_EQ(other, "") << e.id;
    if (e.program == "cccl_cub_block" && e.producer == Producer::nvcc) {  // the -lineinfo build has no DIEs
      EXPECT_NE(r.err.find("[scope-overlap]"), std::string::npos) << e.id;
    }
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no producer available to build the corpus";
  std::printf("checked %d nvcc/clang corpus files\n", checked);
}

}  // namespace

// Triton's, Numba's and nvcc's PTX from the device run (fixtures/producers):
// no errors and no warnings. Triton's concrete subprogram names itself only
// through DW_AT_abstract_origin, which the linkage-name rule follows.
TEST(CheckProducers, OtherProducersPtxChecksClean) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kFixtures + "/producers")) {
    if (entry.path().extension() != ".ptx") continue;
    CommandResult r = check(entry.path().string());
    EXPECT_EQ(r.exitCode, 0) << entry.path() << "\n" << r.err;
    EXPECT_NE(r.out.find(": 0 errors, 0 warnings"), std::string::npos) << entry.path() << "\n" << r.out << r.err;
    ++checked;
  }
  EXPECT_GE(checked, 9);
}
