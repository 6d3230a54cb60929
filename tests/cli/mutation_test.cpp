// Mutated PTX, as a careless producer or a truncated download makes it:
// every stage of the library and every ptxdump command must end with a
// diagnostic or a result, never a crash (the sanitizer build runs this too).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "commands.h"
#include "corpus.h"
#include "ptxdwarf/print/dump.h"
#include "module_text.h"
#include "ptxdwarf/check/check.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/write/ptx_writer.h"
#include "ptxdwarf/write/reencode.h"
#include "tools.h"

using namespace ptxdwarf;
using namespace ptxdwarf::testsupport;

namespace {

// One mutation of the kinds that break real files: a flipped byte, a digit or
// punctuation inserted, a range deleted, a line duplicated, the tail cut off.
std::string mutate(std::string text, std::mt19937& rng) {
  if (text.empty()) return text;
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  static const std::string alphabet = "0123456789,;{}.-+:/*\"x\n\r\t %$_ab";
  int edits = 1 + static_cast<int>(pick(4));
  for (int e = 0; e < edits && !text.empty(); ++e) {
    size_t at = pick(text.size());
    switch (pick(6)) {
      case 0: text[at] = static_cast<char>(pick(256)); break;
      case 1: text.insert(at, 1, alphabet[pick(alphabet.size())]); break;
      case 2: text.erase(at, 1 + pick(64)); break;
      case 3: {
        size_t start = text.rfind('\n', at);
        start = start == std::string::npos ? 0 : start + 1;
        size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        text.insert(start, text.substr(start, end - start) + "\n");
        break;
      }
      case 4: text.resize(at); break;
      default: text[at] = alphabet[pick(alphabet.size())]; break;
    }
  }
  return text;
}

std::vector<std::string> seeds() {
  std::vector<std::string> out = {*readFile(std::string(PTXDWARF_FIXTURES) + "/chapter6.ptx")};
  for (const CorpusEntry& e : corpusEntries()) {
    if (e.id != "loclists_nvcc_sm_90" && e.id != "structs_clang_sm_80") continue;
    PreparedEntry p = prepare(e);
    if (p.status == PreparedEntry::Status::ready) out.push_back(*readFile(p.ptxPath));
  }
  return out;
}

std::string formatted(const Diagnostics& diags) {
  std::string out;
  for (const Diagnostic& d : diags.items) out += d.format("mutant.ptx") + "\n";
  return out;
}

// What the dump, JSON and reformat stages make of one read: compared between
// the one-thread read and the read in parts, which must agree byte for byte.
struct StageOutputs {
  std::string dump, json, reformatted, streamed, reformatErrors;
  bool decoded = false;
};

StageOutputs runStages(const std::string& text, const ptx::ReadResult& r) {
  StageOutputs o;
  read::Dwarf dwarf = read::decode(r.module.sections);
  ptxdwarf::print::dumpText(r.module, dwarf, {true, true, true, true, true, true}, o.dump);
  ptxdwarf::print::dumpJson(r.module, dwarf, {true, true, true, true, true, true}, o.json);
  EXPECT_EQ(formatted(check::run(r.module, dwarf, {.threads = 1})), formatted(check::run(r.module, dwarf, {.threads = 3})));
  if (dwarf.diagnostics.hasErrors()) return o;
  o.decoded = true;
  Diagnostics diags;
  std::vector<SectionImage> images = write::encodeCanonical(dwarf, diags);
  write::WriteOptions options;
  options.dwarf = &dwarf;
  o.reformatted = write::reformat(text, r.module, images, options, diags).value_or("");
  o.reformatErrors = formatted(diags);
  // The streamed reformat hands over the same text, or nothing on error.
  Diagnostics streamDiags;
  write::reformat(text, r.module, images, options, streamDiags, [&](std::string_view piece) { o.streamed += piece; });
  return o;
}

// Every stage on one input; returns how far it got (for the summary). The
// parallel checker must give what one thread gives; the streamed reformat
// what the whole one gives.
int runAllStages(const std::string& text) {
  ptx::ReadResult r = ptx::read(text, "mutant.ptx");
  if (!r.ok()) return 0;
  StageOutputs serial = runStages(text, r);
  EXPECT_FALSE(serial.dump.empty());
  EXPECT_EQ(serial.streamed, serial.reformatted);
  if (!serial.decoded) return 1;
  // A reformat without errors is PTX the reader accepts.
  if (serial.reformatErrors.empty()) {
    ptx::ReadResult again = ptx::read(serial.reformatted, "reformatted.ptx");
    EXPECT_TRUE(again.ok()) << formatted(again.diagnostics);
  }
  return 2;
}

}  // namespace

TEST(Mutations, EveryStageSurvivesMutatedPtx) {
  std::mt19937 rng(20261121);
  int counts[3] = {0, 0, 0};
  for (const std::string& seed : seeds()) {
    for (int i = 0; i < 300; ++i) ++counts[runAllStages(mutate(seed, rng))];
  }
  std::printf("mutants: %d rejected by the reader, %d with DWARF errors, %d decoded cleanly\n", counts[0], counts[1],
              counts[2]);
  EXPECT_GT(counts[0], 0);
  EXPECT_GT(counts[2], 0);
}

TEST(Mutations, PtxdumpExitsWithACodeNotASignal) {
  std::mt19937 rng(7);
  std::string seed = seeds().front();
  std::string path = (std::filesystem::temp_directory_path() / ("ptxdump_mutant_" + std::to_string(getpid()) + ".ptx"))
                         .string();
  for (int i = 0; i < 25; ++i) {
    ASSERT_TRUE(writeFile(path, mutate(seed, rng)));
    for (const char* command : {"dump", "check"}) {
      CommandResult r = runCommand({PTXDUMP_EXE, command, path, command == std::string("dump") ? "--all" : "--werror"},
                                   {std::chrono::seconds(60)});
      EXPECT_FALSE(r.timedOut) << command;
      EXPECT_TRUE(r.exitCode == 0 || r.exitCode == 1 || r.exitCode == 2) << command << " exit " << r.exitCode << "\n"
                                                                          << r.err;
    }
  }
  std::filesystem::remove(path);
}
