// `strip` and `reformat --remap-path` on every corpus file:
//  - strip --all: ptxas makes byte-identical code (every `.text*` section of
//    the cubin) from the output and from the input with only `debug` taken
//    from its `.target` (a `.target ... debug` makes ptxas compile for
//    debugging whatever its options, and in that mode the DWARF changes the
//    register allocation): both assembled with `ptxas -arch=A`, no -g;
//  - strip --keep-lines: the same with `ptxas -arch=A -lineinfo`;
//  - remap: the output assembles with `ptxas -arch=A -g`; its `.file` paths
//    and its unit names and directories are the remapped ones, ptxas' own
//    `.debug_line` (llvm-dwarfdump) names the remapped directories, check
//    finds no error the input did not have, and llvm-dwarfdump reads as many
//    DIEs from its cubin as from the input's.
#include <algorithm>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <regex>

#include "corpus.h"
#include "elf.h"
#include "ptxdwarf/check/check.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/write/remap.h"
#include "ptxdwarf/write/strip.h"
#include "tools.h"
#include "missing_tool.h"

namespace {

using namespace ptxdwarf;
namespace ts = ptxdwarf::testsupport;

std::string diagnosticsText(const Diagnostics& d, const std::string& file) {
  std::string s;
  for (const Diagnostic& i : d.items) s += i.format(file) + "\n";
  return s;
}

// The input with `debug` taken from `.target`, by a rule of this test's own
// (not the library's): `, debug` or `debug, ` on the `.target` line.
std::string withoutTargetDebug(const std::string& text) {
  static const std::regex target(R"((\.target[^\n;]*?)(\s*,\s*debug\b|\bdebug\s*,\s*))");
  return std::regex_replace(text, target, "$1", std::regex_constants::format_first_only);
}

using Sections = std::map<std::string, std::vector<uint8_t>>;

Sections codeSections(const std::string& cubin) {
  std::string error;
  std::optional<Sections> all = ts::readElfSections(cubin, &error);
  EXPECT_TRUE(all.has_value()) << error;
  Sections code;
  if (all)
    for (auto& [name, bytes] : *all)
      if (name.starts_with(".text")) code.emplace(name, bytes);
  return code;
}

struct Paths {
  std::string dir;
  std::string base;
};

class StripRemap : public testing::TestWithParam<ts::CorpusEntry> {
 protected:
  void SetUp() override {
    ptxas_ = ts::findTool("ptxas");
    if (!ptxas_) PTXDWARF_MISSING_TOOL("ptxas not found");
    prepared_ = ts::prepare(GetParam());
    if (prepared_.status == ts::PreparedEntry::Status::skipped) GTEST_SKIP() << prepared_.message;
    ASSERT_EQ(prepared_.status, ts::PreparedEntry::Status::ready) << prepared_.message;
    std::string error;
    std::optional<std::string> text = ts::readFile(prepared_.ptxPath, &error);
    ASSERT_TRUE(text.has_value()) << error;
    text_ = std::move(*text);
    dir_ = std::filesystem::path(ts::workDir()) / "strip_remap";
    std::filesystem::create_directories(dir_);
  }

  std::string path(const std::string& suffix) const { return (dir_ / (GetParam().id + suffix)).string(); }

  // Assembles `ptx` (written to `name`.ptx) with `flags`; the cubin's path.
  std::string assemble(const std::string& name, std::string_view ptx, const std::vector<std::string>& flags) {
    const std::string ptxPath = path(name + ".ptx"), cubin = path(name + ".cubin");
    std::string error;
    EXPECT_TRUE(ts::writeFile(ptxPath, ptx, &error)) << error;
    std::filesystem::remove(cubin);
    std::vector<std::string> argv{*ptxas_, "-arch=" + GetParam().arch};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {ptxPath, "-o", cubin});
    const ts::CommandResult r = ts::runCommand(argv);
    EXPECT_TRUE(r.ok()) << "ptxas rejects " << ptxPath << ": " << r.summary();
    return r.ok() ? cubin : std::string();
  }

  void expectSameCode(write::StripMode mode, const std::vector<std::string>& flags, const char* what) {
    const ptx::ReadResult in = ptx::read(text_, prepared_.ptxPath);
    ASSERT_TRUE(in.ok()) << diagnosticsText(in.diagnostics, prepared_.ptxPath);
    const write::Stripped s = write::strip(text_, in.module, mode);
    ASSERT_TRUE(s.ok()) << diagnosticsText(s.diagnostics, prepared_.ptxPath);
    const ptx::ReadResult out = ptx::read(s.ptx, "stripped");
    ASSERT_TRUE(out.ok()) << diagnosticsText(out.diagnostics, "stripped");
    for (const SectionImage& sec : out.module.sections)
      EXPECT_TRUE(mode == write::StripMode::keepLines && sec.name == ".debug_str") << sec.name << " left";
    EXPECT_FALSE(out.module.debug);
    if (mode == write::StripMode::all) {
      EXPECT_TRUE(out.module.files.empty());
      EXPECT_TRUE(out.module.locs.empty());
    } else {
      EXPECT_EQ(out.module.files.size(), in.module.files.size());
      EXPECT_EQ(out.module.locs.size(), in.module.locs.size());
    }
    // Without `.target debug` a whole-program ptxas drops the .func bodies no
    // kernel calls: a module of functions only (some of LLVM's NVPTX tests) is
    // compiled relocatable (-c), which keeps them.
    std::vector<std::string> options = flags;
    if (std::none_of(in.module.functions.begin(), in.module.functions.end(),
                     [](const ptx::Function& f) { return f.isEntry && f.hasBody; }))
      options.push_back("-c");
    const std::string want = assemble(std::string(what) + ".reference", withoutTargetDebug(text_), options);
    const std::string got = assemble(what, s.ptx, options);
    ASSERT_FALSE(want.empty() || got.empty());
    const Sections a = codeSections(want), b = codeSections(got);
    const bool hasCode = std::any_of(in.module.functions.begin(), in.module.functions.end(),
                                     [](const ptx::Function& f) { return f.hasBody; });
    if (hasCode) {  // a module of variables only (LLVM's debug-ptx-symbols) has no code to compare
      ASSERT_FALSE(a.empty()) << "no .text section in " << want;
    }
    EXPECT_EQ(a, b) << "the code of " << got << " differs from " << want;
    size_t bytes = 0;
    for (const auto& [name, code] : a) bytes += code.size();
    std::printf("[ strip %s ] %s: ptxas accepts; %zu .text sections, %zu bytes identical; PTX %zu -> %zu bytes\n", what,
                GetParam().id.c_str(), a.size(), bytes, text_.size(), s.ptx.size());
  }

  std::optional<std::string> ptxas_;
  ts::PreparedEntry prepared_;
  std::string text_;
  std::filesystem::path dir_;
};

TEST_P(StripRemap, StripAllKeepsTheCode) { expectSameCode(write::StripMode::all, {}, "all"); }

TEST_P(StripRemap, StripKeepLinesKeepsTheCode) { expectSameCode(write::StripMode::keepLines, {"-lineinfo"}, "lines"); }

std::string rootString(const read::Dwarf& d, uint16_t name) {
  for (const read::Die& die : d.dies)
    if (!die.isNull()) {
      std::optional<read::AttrValue> v = d.attribute(die, name);
      return v && v->isString() ? std::string(v->string()) : std::string();
    }
  return {};
}

TEST_P(StripRemap, RemappedPathsAssemble) {
  // Absolute paths get a longer prefix (every offset after a unit's name
  // moves), and the corpus' own directory, matched by a later option,
  // a shorter one: the last match wins.
  const std::string corpusDir = std::filesystem::path(prepared_.ptxPath).parent_path().string();
  const std::vector<write::PathPrefixMap> maps{{"/", "/remapped/by/ptxdump/"}, {corpusDir, "/c"}};
  const ptx::ReadResult in = ptx::read(text_, prepared_.ptxPath);
  ASSERT_TRUE(in.ok());
  const read::Dwarf dwarf = read::decode(in.module.sections);
  const write::Remapped r = write::remapPaths(text_, in.module, dwarf, maps);
  ASSERT_TRUE(r.ok()) << diagnosticsText(r.diagnostics, prepared_.ptxPath);

  const ptx::ReadResult out = ptx::read(r.ptx, "remapped");
  ASSERT_TRUE(out.ok()) << diagnosticsText(out.diagnostics, "remapped");
  ASSERT_EQ(out.module.files.size(), in.module.files.size());
  size_t remapped = 0;
  for (size_t i = 0; i < in.module.files.size(); ++i) {
    const std::string& before = in.module.files[i].path;
    const std::string want = write::remapPath(before, maps).value_or(before);
    EXPECT_EQ(out.module.files[i].path, want);
    remapped += want != before;
  }
  const read::Dwarf after = read::decode(out.module.sections);
  EXPECT_FALSE(after.diagnostics.hasErrors()) << diagnosticsText(after.diagnostics, "remapped");
  for (uint16_t attr : {dw::DW_AT_name, dw::DW_AT_comp_dir}) {
    const std::string before = rootString(dwarf, attr);
    EXPECT_EQ(rootString(after, attr), write::remapPath(before, maps).value_or(before));
  }
  // check: nothing the input did not have (the round trip included).
  const size_t errorsBefore = check::run(in.module, dwarf).errorCount();
  EXPECT_EQ(check::run(out.module, after).errorCount(), errorsBefore) << "check finds new errors";

  const std::string cubin = assemble("remapped", r.ptx, {"-g"});
  ASSERT_FALSE(cubin.empty());
  std::string lineDirs = "(llvm-dwarfdump not found)";
  if (std::optional<std::string> dwarfdump = ts::findTool("llvm-dwarfdump")) {
    const ts::CommandResult lines = ts::runCommand({*dwarfdump, "--debug-line", cubin});
    ASSERT_TRUE(lines.ok()) << lines.summary();
    for (const ptx::FileEntry& f : out.module.files) {
      const std::string dir = std::filesystem::path(f.path).parent_path().string();
      if (!dir.empty()) {
        EXPECT_NE(lines.out.find("\"" + dir + "\""), std::string::npos) << dir << " not in\n" << lines.out;
      }
    }
    if (!in.module.files.empty() && in.module.files[0].path.starts_with("/")) {
      EXPECT_EQ(lines.out.find("\"" + corpusDir + "\""), std::string::npos) << "the old directory is still named";
    }
    lineDirs = "ptxas' .debug_line names them";
    if (in.module.section(".debug_info")) {
      const ts::CommandResult a = ts::runCommand({*dwarfdump, "--debug-info", prepared_.cubinPath});
      const ts::CommandResult b = ts::runCommand({*dwarfdump, "--debug-info", cubin});
      auto dies = [](const std::string& s) {
        static const std::regex die(R"(\n0x[0-9a-f]{8}: )");
        return std::distance(std::sregex_iterator(s.begin(), s.end(), die), std::sregex_iterator());
      };
      EXPECT_EQ(dies(a.out), dies(b.out)) << "llvm-dwarfdump reads another number of DIEs";
    }
  }
  std::printf("[ remap ] %s: ptxas -g accepts; %zu of %zu .file paths and %zu DWARF strings remapped; %s\n",
              GetParam().id.c_str(), remapped, in.module.files.size(), r.stats.strings, lineDirs.c_str());
}

INSTANTIATE_TEST_SUITE_P(Corpus, StripRemap, testing::ValuesIn(ts::assembledEntries()),
                         [](const testing::TestParamInfo<ts::CorpusEntry>& info) { return info.param.id; });

}  // namespace
