// What cuda-gdb showed on a real GPU (tests/device/run.sh, transcripts in
// fixtures/device/) held against what view::lookup says from the PTX alone:
// stopped at the same line, the same variables and parameters are in scope,
// and the ones cuda-gdb calls <optimized out> because no location-list range
// covers them are the ones lookup calls unavailable. Runs without a GPU.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "corpus.h"
#include "missing_tool.h"
#include "tools.h"
#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/cubin/line_program.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/lookup.h"
#include "ptxdwarf/write/annotate.h"

using namespace ptxdwarf;
using ptxdwarf::testsupport::readFixture;

namespace {

// One place cuda-gdb reported itself stopped at ("#0  fn (...) at FILE:LINE"),
// with the `NAME = VALUE` lines (`info args`, `info locals`) printed there
// before the next such report.
struct Stop {
  std::string frame;  // the `#0  ...` line
  bool hitBreakpoint = false;  // "CUDA thread hit Breakpoint" since the previous `#0` line
  std::string file;
  unsigned line = 0;
  std::vector<std::pair<std::string, std::string>> values;
};

bool isVariableName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '%' || c == '$')) return false;
  return s[0] != '$';  // `$1 = ...` is a value history entry, not a variable
}

std::vector<Stop> parseStops(std::string_view transcript) {
  std::vector<Stop> stops;
  size_t pos = 0;
  bool hit = false;
  while (pos < transcript.size()) {
    size_t end = transcript.find('\n', pos);
    if (end == std::string_view::npos) end = transcript.size();
    std::string_view line = transcript.substr(pos, end - pos);
    pos = end + 1;
    if (line.find("hit Breakpoint") != std::string_view::npos) hit = true;
    if (line.starts_with("#0  ")) {
      size_t at = line.rfind(" at ");
      size_t colon = line.rfind(':');
      if (at == std::string_view::npos || colon == std::string_view::npos || colon < at) continue;
      Stop s;
      s.frame = std::string(line);
      s.hitBreakpoint = std::exchange(hit, false);
      s.file = std::string(line.substr(at + 4, colon - at - 4));
      s.line = static_cast<unsigned>(std::stoul(std::string(line.substr(colon + 1))));
      stops.push_back(std::move(s));
      continue;
    }
    size_t eq = line.find(" = ");
    if (stops.empty() || eq == std::string_view::npos || !isVariableName(line.substr(0, eq))) continue;
    stops.back().values.emplace_back(std::string(line.substr(0, eq)), std::string(line.substr(eq + 3)));
  }
  return stops;
}

// The first stop at `line` that printed `name`.
std::optional<Stop> stopPrinting(const std::vector<Stop>& stops, unsigned line, std::string_view name) {
  for (const Stop& s : stops) {
    if (s.line != line) continue;
    for (const auto& v : s.values)
      if (v.first == name) return s;
  }
  return std::nullopt;
}

// The value the stop printed for `name` ("" when it printed none).
std::string valueOf(const Stop& s, std::string_view name) {
  for (const auto& v : s.values)
    if (v.first == name) return v.second;
  return {};
}

std::set<std::string> printedNames(const Stop& s) {
  std::set<std::string> names;
  for (const auto& v : s.values) names.insert(v.first);
  return names;
}

struct Loaded {
  std::string text;
  ptx::ReadResult read;
  read::Dwarf dwarf;
};

Loaded load(std::string text, std::string_view name) {
  Loaded l{std::move(text), {}, {}};
  l.read = ptx::read(l.text, name);
  l.dwarf = read::decode(l.read.module.sections);
  return l;
}

enum class Which { all, parameters, nonParameters };

std::set<std::string> lookupNames(const Loaded& l, std::string_view where, Which which) {
  view::LookupResult r = view::lookup(l.read.module, l.dwarf, where);
  EXPECT_FALSE(r.matches.empty()) << where << ": " << r.error;
  std::set<std::string> names;
  if (r.matches.empty()) return names;
  for (const view::VariableInfo& v : r.matches[0].variables)
    if (which == Which::all || (which == Which::parameters) == v.parameter) names.insert(v.name);
  return names;
}

std::string annotated(std::string_view fixture, std::string_view sourceName, bool rename, bool keepLines) {
  std::string in = readFixture(fixture);
  EXPECT_FALSE(in.empty()) << fixture;
  ptx::ReadResult r = ptx::read(in, fixture);
  write::AnnotateOptions options;
  options.sourceName = std::string(sourceName);
  options.renameRegisters = rename;
  options.keepLines = keepLines;
  write::Annotated out = write::annotate(in, r.module, options);
  EXPECT_FALSE(out.diagnostics.hasErrors());
  return out.ptx;
}

TEST(CudaGdbTranscript, NvccDashGLocalsAtALoopLineAreWhatLookupSees) {
  std::vector<Stop> stops = parseStops(readFixture("device/cuda-gdb-locals.txt"));
  std::optional<Stop> stop = stopPrinting(stops, 20, "acc");
  ASSERT_TRUE(stop);
  EXPECT_TRUE(stop->file.ends_with("locals.cu"));
  Loaded l = load(readFixture("producers/nvcc_G_locals_main.ptx"), "nvcc_G_locals_main.ptx");
  ASSERT_TRUE(l.read.ok());
  // info args + info locals: idx out n w j k acc table wide name. `odd` and `big`
  // are in neither (nvcc describes no variable for them).
  EXPECT_EQ(printedNames(*stop), lookupNames(l, "locals.cu:20", Which::all));
  EXPECT_EQ(printedNames(*stop).size(), 10u);
}

TEST(CudaGdbTranscript, OptimizedOutInCudaGdbIsUnavailableInLookup) {
  std::vector<Stop> stops = parseStops(readFixture("device/cuda-gdb-locals.txt"));
  std::optional<Stop> stop = stopPrinting(stops, 4, "s");
  ASSERT_TRUE(stop);
  Loaded l = load(readFixture("producers/nvcc_G_locals_main.ptx"), "nvcc_G_locals_main.ptx");
  view::LookupResult r = view::lookup(l.read.module, l.dwarf, "locals.cu:4");
  ASSERT_FALSE(r.matches.empty()) << r.error;
  std::set<std::string> expected;
  size_t optimizedOut = 0;
  for (const view::VariableInfo& v : r.matches[0].variables) {
    expected.insert(v.name);
    for (const auto& [name, value] : stop->values) {
      if (name != v.name) continue;
      EXPECT_EQ(value == "<optimized out>", !v.available) << name << " = " << value;
      optimizedOut += value == "<optimized out>";
    }
  }
  EXPECT_EQ(printedNames(*stop), expected);
  EXPECT_EQ(optimizedOut, 1u);  // `i`: its location list covers none of line 4's first instruction
}

// The DSL kernel as `ptxdump annotate fixtures/annotate/dsl.ptx` wrote it for
// the device run: cuda-gdb stopped at lines of the input itself.
TEST(CudaGdbTranscript, AnnotatedKernelStopsAtInputLinesWithTheRegistersAsLocals) {
  std::vector<Stop> stops = parseStops(readFixture("device/cuda-gdb-dsl.txt"));
  Loaded l = load(annotated("annotate/dsl.ptx", "fixtures/annotate/dsl.ptx", false, false), "dsl_annotated.ptx");
  ASSERT_TRUE(l.read.ok());

  // Stopped at line 28, stepped to 29 and 30: lines of the input, in order.
  std::vector<unsigned> lines;
  for (const Stop& s : stops) {
    EXPECT_EQ(s.file, "fixtures/annotate/dsl.ptx");
    if (lines.empty() || lines.back() != s.line) lines.push_back(s.line);
  }
  EXPECT_EQ(lines, (std::vector<unsigned>{28, 29, 30, 37, 39}));

  std::optional<Stop> args = stopPrinting(stops, 28, "n");
  ASSERT_TRUE(args);
  EXPECT_EQ(printedNames(*args), lookupNames(l, "dsl.ptx:28", Which::parameters));

  // Function scope at 30; the `{ }` block's %acc joins at 37.
  std::optional<Stop> outer = stopPrinting(stops, 30, "%lidx0");
  std::optional<Stop> inner = stopPrinting(stops, 37, "%acc");
  ASSERT_TRUE(outer && inner);
  EXPECT_EQ(printedNames(*outer), lookupNames(l, "dsl.ptx:30", Which::nonParameters));
  EXPECT_EQ(printedNames(*inner), lookupNames(l, "dsl.ptx:37", Which::nonParameters));
  EXPECT_FALSE(printedNames(*outer).contains("%acc"));
  EXPECT_FALSE(printedNames(*outer).contains("%val_f32_0"));  // over 8 bytes: no variable

  // Stepped out of the block: cuda-gdb no longer knows %acc, nor does lookup.
  EXPECT_NE(readFixture("device/cuda-gdb-dsl.txt").find("No symbol \"%acc\" in current context."), std::string::npos);
  EXPECT_FALSE(lookupNames(l, "dsl.ptx:39", Which::nonParameters).contains("%acc"));
}

TEST(CudaGdbTranscript, RenamedRegisterIsALocal) {
  std::vector<Stop> stops = parseStops(readFixture("device/cuda-gdb-dsl-renamed.txt"));
  Loaded l = load(annotated("annotate/dsl.ptx", "fixtures/annotate/dsl.ptx", true, false), "dsl_renamed.ptx");
  std::optional<Stop> stop = stopPrinting(stops, 36, "%_a");
  ASSERT_TRUE(stop);
  EXPECT_EQ(printedNames(*stop), lookupNames(l, "dsl.ptx:36", Which::nonParameters));
  EXPECT_EQ(valueOf(*stop, "%_a"), "7");  // thread 7 loaded in[7] = 7.0
}

// nvcc -O3 -lineinfo output annotated with --keep-lines: the optimized build's
// registers become locals at its own source lines.
TEST(CudaGdbTranscript, KeepLinesGivesAnOptimizedBuildItsRegistersAsLocals) {
  std::vector<Stop> stops = parseStops(readFixture("device/cuda-gdb-locals-O3.txt"));
  Loaded l = load(annotated("producers/nvcc_O3_lineinfo_locals.ptx", "", false, true), "locals_O3_annotated.ptx");
  ASSERT_TRUE(l.read.ok());
  std::optional<Stop> args = stopPrinting(stops, 20, "_Z11localArraysPKiPxi_param_2");
  std::optional<Stop> locals = stopPrinting(stops, 19, "%rd17");
  ASSERT_TRUE(args && locals);
  EXPECT_TRUE(args->file.ends_with("fixtures/corpus/locals.cu"));
  EXPECT_EQ(printedNames(*args), lookupNames(l, "locals.cu:20", Which::parameters));
  EXPECT_EQ(printedNames(*locals), lookupNames(l, "locals.cu:19", Which::nonParameters));
  EXPECT_GT(printedNames(*locals).size(), 80u);
}

}  // namespace

namespace {

// CUB's BlockReduce compiled with nvcc -O3 (no line information at all),
// annotated: the optimized PTX is the source cuda-gdb steps through.
TEST(CudaGdbTranscript, AnnotatedCubKernelStepsThroughItsOwnPtx) {
  const std::string transcript = readFixture("device/cuda-gdb-cccl-O3.txt");
  std::vector<Stop> stops = parseStops(transcript);
  Loaded l = load(annotated("annotate/cccl_O3.ptx", "fixtures/annotate/cccl_O3.ptx", false, false), "cccl_O3.ptx");
  ASSERT_TRUE(l.read.ok());
  std::vector<unsigned> lines;
  for (const Stop& s : stops) {
    EXPECT_EQ(s.file, "fixtures/annotate/cccl_O3.ptx");
    if (lines.empty() || lines.back() != s.line) lines.push_back(s.line);
  }
  EXPECT_EQ(lines, (std::vector<unsigned>{59, 60, 66, 97}));
  std::optional<Stop> loaded = stopPrinting(stops, 66, "%r9");
  std::optional<Stop> summed = stopPrinting(stops, 97, "%r23");
  ASSERT_TRUE(loaded && summed);
  EXPECT_EQ(printedNames(*loaded), lookupNames(l, "cccl_O3.ptx:66", Which::nonParameters));
  EXPECT_EQ(printedNames(*summed), lookupNames(l, "cccl_O3.ptx:97", Which::nonParameters));
  EXPECT_EQ(valueOf(*loaded, "%r9"), "37");     // thread 37 loaded in[37]
  EXPECT_EQ(valueOf(*summed, "%r23"), "8128");  // thread 0 holds the block's sum of 0 .. 127
}

}  // namespace

namespace {

// numba-cuda's debug=True build (full DWARF from NVVM, variables in PTX
// registers): tests/device/numba_main.py run under cuda-gdb, stopped at the
// loop's exit in thread 3, where acc = 1 + 3 + 9 + 27.
TEST(CudaGdbTranscript, NumbaDebugKernelLocalsAreWhatLookupSees) {
  const std::string transcript = readFixture("device/cuda-gdb-numba.txt");
  std::vector<Stop> stops = parseStops(transcript);
  std::optional<Stop> stop = stopPrinting(stops, 29, "acc");
  ASSERT_TRUE(stop);
  EXPECT_EQ(stop->file, "numba_main.py");
  Loaded l = load(readFixture("producers/numba_poly_G.ptx"), "numba_poly_G.ptx");
  ASSERT_TRUE(l.read.ok());
  EXPECT_EQ(printedNames(*stop), (std::set<std::string>{"out", "x", "n", "i", "acc", "p"}));
  EXPECT_EQ(printedNames(*stop), lookupNames(l, "numba_main.py:29", Which::all));
  EXPECT_EQ(valueOf(*stop, "i"), "3");
  EXPECT_EQ(valueOf(*stop, "acc"), "40");
  EXPECT_EQ(valueOf(*stop, "p"), "81");
  // Inside the loop, at its first iteration: the same names (NVVM describes
  // no `k`: neither knows it), the values before `acc += p`.
  std::optional<Stop> loop = stopPrinting(stops, 27, "acc");
  ASSERT_TRUE(loop);
  EXPECT_EQ(printedNames(*loop), lookupNames(l, "numba_main.py:27", Which::all));
  EXPECT_EQ(valueOf(*loop, "acc"), "0");
  EXPECT_EQ(valueOf(*loop, "p"), "1");
  EXPECT_NE(transcript.find("No symbol \"k\" in current context."), std::string::npos);
  EXPECT_FALSE(lookupNames(l, "numba_main.py:27", Which::all).contains("k"));
}

// The second kernel, stopped in block 1's thread 5 (i = 37).
TEST(CudaGdbTranscript, NumbaSecondKernelLocalsAreWhatLookupSees) {
  std::vector<Stop> stops = parseStops(readFixture("device/cuda-gdb-numba.txt"));
  std::optional<Stop> stop = stopPrinting(stops, 36, "i");
  ASSERT_TRUE(stop);
  Loaded l = load(readFixture("producers/numba_histogram_G.ptx"), "numba_histogram_G.ptx");
  ASSERT_TRUE(l.read.ok());
  EXPECT_EQ(printedNames(*stop), (std::set<std::string>{"data", "bins", "nbins", "b", "i"}));
  EXPECT_EQ(printedNames(*stop), lookupNames(l, "numba_main.py:36", Which::all));
  EXPECT_EQ(valueOf(*stop, "i"), "37");
  // nbins was 8. Its register, %rd33, is written once and never read, as
  // poly's n: here cuda-gdb prints 0 instead of <optimized out>.
  EXPECT_EQ(valueOf(*stop, "nbins"), "0");
}

// Where answering from the PTX alone ends: NVVM puts `n` in %rd47, a register
// the PTX defines and never reads, so ptxas keeps no SASS register for it and
// cuda-gdb says <optimized out>; lookup gives the location the DWARF gives.
TEST(CudaGdbTranscript, NumbaParameterInARegisterNeverReadIsOptimizedOutInCudaGdb) {
  std::vector<Stop> stops = parseStops(readFixture("device/cuda-gdb-numba.txt"));
  std::optional<Stop> stop = stopPrinting(stops, 29, "n");
  ASSERT_TRUE(stop);
  EXPECT_EQ(valueOf(*stop, "n"), "<optimized out>");
  const std::string text = readFixture("producers/numba_poly_G.ptx");
  Loaded l = load(text, "numba_poly_G.ptx");
  view::LookupResult r = view::lookup(l.read.module, l.dwarf, "numba_main.py:29");
  ASSERT_FALSE(r.matches.empty()) << r.error;
  std::string location;
  for (const view::VariableInfo& v : r.matches[0].variables)
    if (v.name == "n") location = v.location;
  EXPECT_EQ(location, "%rd47");
  size_t mentions = 0;
  for (size_t at = text.find("%rd47"); at != std::string::npos; at = text.find("%rd47", at + 1))
    mentions += !std::isdigit(static_cast<unsigned char>(text[at + 5]));
  EXPECT_EQ(mentions, 1u);  // `mov.b64 %rd47, %rd46;`: written, never read
}

}  // namespace

// The same transcripts against lookup on the cubin of the same program,
// made here by ptxas -g -arch=sm_90 from the PTX cuda-gdb's run used: at
// every stop, each variable and parameter cuda-gdb printed is
// `<optimized out>` exactly when lookup says unavailable, and has a SASS
// location otherwise. A stop's address is where cuda-gdb puts a breakpoint
// for its line (lookup's FILE:LINE rule) in the stopped function: a stop
// after `next` is at the first address of the line's first block, as a
// breakpoint is.
namespace {

using ptxdwarf::testsupport::findTool;
using ptxdwarf::testsupport::runCommand;

// ptxas -g -arch=sm_90 on `ptx`; nullopt (with a failure recorded) when it fails.
std::optional<std::string> assemble(const std::string& ptx, const std::string& name) {
  const std::optional<std::string> ptxas = findTool("ptxas");
  if (!ptxas) return std::nullopt;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("ptxdwarf_transcript_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string in = (dir / (name + ".ptx")).string(), out = (dir / (name + ".cubin")).string();
  EXPECT_TRUE(ptxdwarf::testsupport::writeFile(in, ptx));
  const auto result = runCommand({*ptxas, "-g", "-arch=sm_90", in, "-o", out});
  EXPECT_TRUE(result.ok()) << name << ": " << result.summary();
  std::optional<std::string> cubin = ptxdwarf::testsupport::readFile(out);
  std::filesystem::remove_all(dir);
  return result.ok() ? cubin : std::nullopt;
}

struct Program {
  std::string transcript;            // fixtures/device/...
  std::vector<std::string> cubins;   // its kernels' cubins
};

struct Tally {
  size_t stops = 0, variables = 0, agreed = 0;
  std::vector<std::string> disagreements;  // "file:line name: cuda-gdb VALUE, lookup LOCATION"
};

std::string baseName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

view::LookupResult lookupOn(const std::string& cubin, const std::string& at) {
  return view::lookupCubin(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(cubin.data()), cubin.size()),
                           "program.cubin", at);
}

// The match of `stop`'s function in `r`.
std::optional<view::Match> inFrame(const view::LookupResult& r, const Stop& stop) {
  for (const view::Match& m : r.matches) {
    const std::string subprogram = m.scopes.empty() ? m.function : m.scopes.back().name;
    if (stop.frame.find(subprogram) != std::string::npos || stop.frame.find(m.function) != std::string::npos)
      return m;
  }
  return std::nullopt;
}

// Where `next` from `pc` (function-relative) at `line` stops when no branch
// is taken: the first is_stmt row after pc's row, in pc's sequence, of
// another line (gdb steps through its line's range and stops at the start
// of the next line's).
std::optional<uint64_t> nextLineAddress(const std::string& cubin, uint64_t pc, uint32_t line) {
  cubin::ReadResult r = cubin::read(cubin, "program.cubin");
  const SectionImage* debugLine = r.module.section(".debug_line");
  if (!debugLine) return std::nullopt;
  for (const cubin::LineTable& t : cubin::decodeLinePrograms(debugLine->bytes)) {
    for (size_t i = 0; i < t.rows.size(); ++i) {
      if (t.rows[i].endSequence || t.rows[i].address != pc || t.rows[i].line != line) continue;
      for (size_t j = i + 1; j < t.rows.size() && !t.rows[j].endSequence; ++j)
        if (t.rows[j].address > pc && t.rows[j].isStmt && t.rows[j].line != line) return t.rows[j].address;
    }
  }
  return std::nullopt;
}

// The match at each stop: a breakpoint's address (lookup's FILE:LINE rule)
// where cuda-gdb reported a breakpoint hit; the previous stop's address for
// another look at the same line (a thread switch, `frame`); the next line's
// first address after `next`.
std::optional<view::Match> matchOf(const Program& p, const Stop& stop, const Stop* previous,
                                   const std::optional<view::Match>& previousMatch, size_t& cubinIndex) {
  if (!stop.hitBreakpoint && previous && previousMatch && previous->file == stop.file) {
    const std::string& cubin = p.cubins[cubinIndex];
    std::optional<uint64_t> pc = *previousMatch->pc;
    if (previous->line != stop.line) pc = nextLineAddress(cubin, *previousMatch->pc, previous->line);
    if (pc) {
      char at[32];
      std::snprintf(at, sizeof at, "+0x%llx", static_cast<unsigned long long>(*pc));
      std::optional<view::Match> m = inFrame(lookupOn(cubin, previousMatch->function + at), stop);
      if (m && m->line == stop.line) return m;
    }
  }
  const std::string at = baseName(stop.file) + ":" + std::to_string(stop.line);
  for (cubinIndex = 0; cubinIndex < p.cubins.size(); ++cubinIndex)
    if (std::optional<view::Match> m = inFrame(lookupOn(p.cubins[cubinIndex], at), stop)) return m;
  cubinIndex = 0;
  return std::nullopt;
}

Tally replay(const Program& p) {
  Tally t;
  const std::vector<Stop> stops = parseStops(readFixture(p.transcript));
  std::optional<view::Match> previousMatch;
  size_t cubinIndex = 0;
  for (size_t i = 0; i < stops.size(); ++i) {
    const Stop& stop = stops[i];
    std::optional<view::Match> m = matchOf(p, stop, i ? &stops[i - 1] : nullptr, previousMatch, cubinIndex);
    previousMatch = m;
    EXPECT_TRUE(m) << p.transcript << ": no lookup match for " << stop.frame;
    if (!m || stop.values.empty()) continue;
    ++t.stops;
    for (const auto& [name, value] : stop.values) {
      ++t.variables;
      const view::VariableInfo* v = nullptr;
      for (const view::VariableInfo& candidate : m->variables)
        if (candidate.name == name) v = &candidate;
      const bool optimizedOut = value == "<optimized out>";
      const bool agrees =
          v && v->sass && (optimizedOut ? !v->available && v->sass->empty() : v->available && !v->sass->empty());
      if (agrees) {
        ++t.agreed;
        continue;
      }
      t.disagreements.push_back(baseName(stop.file) + ":" + std::to_string(stop.line) + " " + name +
                                ": cuda-gdb " + value + ", lookup " +
                                (v ? (v->available ? "available " : "unavailable ") + v->location : "no such variable"));
    }
  }
  return t;
}

#define PTXDWARF_NEED_PTXAS()                                   \
  do {                                                          \
    if (!findTool("ptxas")) PTXDWARF_MISSING_TOOL("ptxas not found"); \
  } while (0)

// Each program: the stops that printed values, the values printed, and
// how many of them lookup on the cubin agrees with.
void expectReplay(const Program& p, size_t stops, size_t variables, const std::vector<std::string>& disagreements = {}) {
  Tally t = replay(p);
  EXPECT_EQ(t.stops, stops) << p.transcript;
  EXPECT_EQ(t.variables, variables) << p.transcript;
  EXPECT_EQ(t.disagreements, disagreements) << p.transcript;
  EXPECT_EQ(t.agreed + t.disagreements.size(), t.variables) << p.transcript;
}

std::string assembled(const std::string& ptx, const std::string& name) {
  std::optional<std::string> cubin = assemble(ptx, name);
  EXPECT_TRUE(cubin) << name;
  return cubin.value_or("");
}

TEST(CudaGdbTranscriptCubin, NvccDashGLocals) {
  PTXDWARF_NEED_PTXAS();
  // Line 20 (threads 0 and 3), line 4 of sumLocal: `i` is <optimized out>
  // there, its location list starting after line 4's address; `s` and the
  // parameters are in R4, R0:R3, R5.
  expectReplay({"device/cuda-gdb-locals.txt", {assembled(readFixture("producers/nvcc_G_locals_main.ptx"), "locals")}}, 2, 21);
}

TEST(CudaGdbTranscriptCubin, AnnotatedDslKernel) {
  PTXDWARF_NEED_PTXAS();
  // At line 37 (+0x310) cuda-gdb printed 0 for %r2, %r3 and %rd4, whose
  // entries in this cubin's register map end before +0x310 and start again
  // after it. Not explained: where entries exist but none covers the pc,
  // cuda-gdb printed <optimized out> at 25 other variables of the -O3 build
  // (registers whose entries start later), and %rd4, a pointer (data1 + 28),
  // cannot be 0; reading past an entry's end (value extrapolation) would
  // agree here but disagree at 9 other variables; nor are they the values
  // of the stop before kept (line 30 printed the same zeros, but CUB's
  // %rd6..%rd8, 0 at line 66, are <optimized out> at line 97). The cubin
  // cuda-gdb ran was made from the annotate output of that day, which was
  // not kept: its register map may differ from this one.
  expectReplay({"device/cuda-gdb-dsl.txt",
                {assembled(annotated("annotate/dsl.ptx", "fixtures/annotate/dsl.ptx", false, false), "dsl")}},
               3, 36,
               {"dsl.ptx:37 %r2: cuda-gdb 0, lookup unavailable %r2 (optimized out: no register map entry of %r2 covers +0x310)",
                "dsl.ptx:37 %r3: cuda-gdb 0, lookup unavailable %r3 (optimized out: no register map entry of %r3 covers +0x310)",
                "dsl.ptx:37 %rd4: cuda-gdb 0, lookup unavailable %rd4 (optimized out: no register map entry of %rd4 covers +0x310)"});
}

TEST(CudaGdbTranscriptCubin, AnnotatedDslKernelRenamed) {
  PTXDWARF_NEED_PTXAS();
  expectReplay({"device/cuda-gdb-dsl-renamed.txt",
                {assembled(annotated("annotate/dsl.ptx", "fixtures/annotate/dsl.ptx", true, false), "dsl_renamed")}},
               1, 18);
}

TEST(CudaGdbTranscriptCubin, AnnotatedCubKernel) {
  PTXDWARF_NEED_PTXAS();
  expectReplay({"device/cuda-gdb-cccl-O3.txt",
                {assembled(annotated("annotate/cccl_O3.ptx", "fixtures/annotate/cccl_O3.ptx", false, false), "cccl")}},
               2, 76);
}

TEST(CudaGdbTranscriptCubin, KeepLinesOptimizedBuild) {
  PTXDWARF_NEED_PTXAS();
  // The stop at line 19 came from `next` at line 20 (+0x8f0): the next
  // line's first address is +0x950, where %rd17 (32768 in thread 3) is in
  // R158:R159; at line 19's first address (+0x8b0) it is in no register.
  expectReplay({"device/cuda-gdb-locals-O3.txt",
                {assembled(annotated("producers/nvcc_O3_lineinfo_locals.ptx", "", false, true), "locals_O3")}},
               2, 101);
}

TEST(CudaGdbTranscriptCubin, NumbaKernels) {
  PTXDWARF_NEED_PTXAS();
  // `n` (%rd47, written and never read) has no register map entry: cuda-gdb
  // and lookup say <optimized out>; `nbins` (%rd33) has R22:R23, where
  // cuda-gdb read 0 (the register holds no trustworthy value, but it is not
  // optimized out).
  expectReplay({"device/cuda-gdb-numba.txt",
                {assembled(readFixture("producers/numba_poly_G.ptx"), "poly"),
                 assembled(readFixture("producers/numba_histogram_G.ptx"), "histogram")}},
               3, 17);
}

}  // namespace
