// Every input a fuzzer ever broke, replayed: fixtures/malformed/fuzz/*.bin
// are section-level inputs (fuzz_input.h layout), *.ptx are PTX text, *.elf
// raw bytes for the cubin reader (which must return, under the sanitizers). Each
// must keep its property, and `check` on it (a .bin wrapped into PTX) must
// give exactly the diagnostics and exit code in <name>.expected.
// Regenerate the .expected files: PTXDWARF_UPDATE_GOLDEN=1 ptxdwarf_unit_tests
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "properties.h"
#include "ptxdwarf/write/ptx_writer.h"

namespace fs = std::filesystem;
using namespace ptxdwarf;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// What `ptxdump check` reports for this PTX: its diagnostics and exit code.
std::string checkReport(const std::string& text, const std::string& name) {
  ptx::ReadResult r = ptx::read(text, name);
  std::string out;
  for (const Diagnostic& d : r.diagnostics.items) out += d.format(name) + "\n";
  if (!r.ok()) return out + "exit 2\n";
  read::Dwarf dwarf = read::decode(r.module.sections);
  Diagnostics diags = check::run(r.module, dwarf);
  for (const Diagnostic& d : diags.items) out += d.format(name) + "\n";
  return out + "exit " + std::to_string(diags.hasErrors() ? 1 : 0) + "\n";
}

// A section-level input as a PTX file: one block per section, one operand per line.
std::string asPtx(const std::string& input) {
  std::vector<SectionImage> sections =
      sectionsFromFuzzInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  std::erase_if(sections, [](const SectionImage& s) { return s.bytes.empty(); });
  write::WriteOptions options;
  options.style = write::Style::onePerLine;
  Diagnostics diags;
  return ".version 7.5\n.target sm_75\n.address_size 64\n" + write::writeSections(sections, options, diags);
}

}  // namespace

TEST(FuzzRegressions, EveryFindingStaysFixed) {
  const bool update = std::getenv("PTXDWARF_UPDATE_GOLDEN") != nullptr;
  int replayed = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(std::string(PTXDWARF_FIXTURES) + "/malformed/fuzz")) {
    std::string input = slurp(e.path());
    if (e.path().extension() == ".elf") {
      fuzz::readAsCubin(std::span(reinterpret_cast<const uint8_t*>(input.data()), input.size()));
      ++replayed;
      continue;
    }
    if (e.path().extension() != ".bin" && e.path().extension() != ".ptx") continue;
    const auto* data = reinterpret_cast<const uint8_t*>(input.data());
    std::string why, text = input;
    if (e.path().extension() == ".ptx") {
      EXPECT_TRUE(fuzz::readAndCheck(input, &why)) << e.path() << ": " << why;
    } else {
      fuzz::decodeAndDump(data, input.size());
      EXPECT_TRUE(fuzz::roundTrips(data, input.size(), &why)) << e.path() << ": " << why;
      text = asPtx(input);
    }
    fs::path expectedPath = e.path();
    expectedPath.replace_extension(".expected");
    std::string report = checkReport(text, e.path().filename().string());
    if (update) std::ofstream(expectedPath, std::ios::binary) << report;
    EXPECT_EQ(report, slurp(expectedPath)) << e.path();
    ++replayed;
  }
  EXPECT_GE(replayed, 5);
}
