// Whole-file phases, one benchmark each, on one PTX file: where `ptxdump check`
// and `ptxdump dump` spend their time. The file is $PTXDWARF_BENCH_PTX (run.sh
// points it at the generated nvcc output); without it, a synthetic one from
// the builder. Not timed assertions: read the numbers (tests/bench/README.md).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "commands.h"
#include "ptxdwarf/print/dump.h"
#include "ptxdwarf/check/check.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/statistics.h"
#include "ptxdwarf/view/types.h"
#include "ptxdwarf/write/annotate.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/encode.h"
#include "ptxdwarf/write/ptx_writer.h"
#include "ptxdwarf/write/reencode.h"
#include "ptxdwarf/print/views.h"

using namespace ptxdwarf;

namespace {

std::string syntheticPtx() {
  write::Builder b;
  b.compileUnit({.producer = "bench", .name = "bench.cu", .compDir = "/tmp"});
  write::DieId intType = b.baseType("int", dw::DW_ATE_signed, 4);
  std::string code;
  for (int f = 0; f < 2000; ++f) {
    std::string n = std::to_string(f);
    write::DieId sp = b.subprogram({.name = "work" + n, .type = intType,
                                    .lowPc = write::SymbolRef{"$L__func_begin" + n},
                                    .highPc = write::SymbolRef{"$L__func_end" + n}});
    b.formalParameter(sp, {.name = "x", .type = intType, .location = write::Location::reg("%r1")});
    code += ".func work" + n + "()\n{\n.reg .b32 %r<4>;\n$L__func_begin" + n + ":\nret;\n$L__func_end" + n + ":\n}\n";
  }
  Diagnostics diags;
  write::WriteOptions options;
  options.style = write::Style::onePerLine;
  return ".version 7.5\n.target sm_90, debug\n.address_size 64\n" + code +
         write::writeSections(write::encode(b.unit(), {}, diags), options, diags);
}

// The file $`variable` names, else `fallback()`.
template <class Fallback>
std::string fileOr(const char* variable, Fallback fallback) {
  const char* path = std::getenv(variable);
  if (!path) return fallback();
  std::string t, error;
  if (!ptxdump::readWholeFile(path, t, error)) {
    std::fprintf(stderr, "%s: %s\n", path, error.c_str());
    std::exit(2);
  }
  return t;
}

const std::string& input() {
  static const std::string text = fileOr("PTXDWARF_BENCH_PTX", syntheticPtx);
  return text;
}

void setBytes(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input().size()));
}

// Without the name index, as ptxdump reads (it builds the index while
// decoding): BM_PhaseIndex times that.
// Arg: threads (2: the large sections read beside the code; wall time is
// what it saves, the "Time" column).
void BM_PhaseRead(benchmark::State& state) {
  ptx::ReadOptions options;
  options.index = false;
  options.threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) {
    ptx::ReadResult r = ptx::read(input(), "bench.ptx", options);
    benchmark::DoNotOptimize(r);
  }
  setBytes(state);
}
BENCHMARK(BM_PhaseRead)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

void BM_PhaseIndex(benchmark::State& state) {
  ptx::ReadResult r = ptx::read(input(), "bench.ptx", {.index = false});
  for (auto _ : state) r.module.reindex();
  setBytes(state);
}
BENCHMARK(BM_PhaseIndex)->Unit(benchmark::kMillisecond);

void BM_PhaseDecode(benchmark::State& state) {
  ptx::ReadResult r = ptx::read(input(), "bench.ptx");
  size_t dies = 0, attrs = 0, relocations = 0;
  for (auto _ : state) {
    read::Dwarf dwarf = read::decode(r.module.sections);
    dies = dwarf.dies.size();
    attrs = 0;
    for (const read::Die& d : dwarf.dies) attrs += dwarf.attributes(d).size();
  }
  for (const SectionImage& s : r.module.sections) relocations += s.relocations.size();
  state.counters["dies"] = static_cast<double>(dies);
  state.counters["attrs"] = static_cast<double>(attrs);
  state.counters["relocs"] = static_cast<double>(relocations);
  setBytes(state);
}
BENCHMARK(BM_PhaseDecode)->Unit(benchmark::kMillisecond);

// check::run after decoding, on state.range(0) threads: the rules alone, or
// the rules and the round trip as `ptxdump check` runs them.
void checkPhase(benchmark::State& state, bool roundTrip) {
  ptx::ReadResult r = ptx::read(input(), "bench.ptx");
  read::Dwarf dwarf = read::decode(r.module.sections);
  const auto threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(check::run(r.module, dwarf, {.roundTrip = roundTrip, .threads = threads}));
  setBytes(state);
}
void BM_PhaseRules(benchmark::State& state) { checkPhase(state, false); }
BENCHMARK(BM_PhaseRules)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
void BM_PhaseCheck(benchmark::State& state) { checkPhase(state, true); }
BENCHMARK(BM_PhaseCheck)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

void BM_PhaseRoundTrip(benchmark::State& state) {
  ptx::ReadResult r = ptx::read(input(), "bench.ptx");
  read::Dwarf dwarf = read::decode(r.module.sections);
  for (auto _ : state) {  // section by section, as check's round trip does
    Diagnostics diags;
    for (const SectionImage& s : dwarf.sections) {
      SectionImage again = write::encodePreserve(dwarf, s, diags);
      benchmark::DoNotOptimize(write::compareImages(std::span(&s, 1), std::span(&again, 1)));
    }
  }
  setBytes(state);
}
BENCHMARK(BM_PhaseRoundTrip)->Unit(benchmark::kMillisecond);

void BM_PhaseDumpText(benchmark::State& state) {
  ptx::ReadResult r = ptx::read(input(), "bench.ptx");
  read::Dwarf dwarf = read::decode(r.module.sections);
  for (auto _ : state) {
    std::string out;
    ptxdwarf::print::dumpText(r.module, dwarf, {.info = true, .loc = true}, out);
    benchmark::DoNotOptimize(out);
  }
  setBytes(state);
}
BENCHMARK(BM_PhaseDumpText)->Unit(benchmark::kMillisecond);

// The view's answers over the decoded file: llvm-dwarfdump --statistics'
// figures and the type layouts (what `dump --statistics` and `types` add to
// the read and decode phases), against the text dump above.
void BM_PhaseStatistics(benchmark::State& state) {
  ptx::ReadResult r = ptx::read(input(), "bench.ptx");
  read::Dwarf dwarf = read::decode(r.module.sections);
  for (auto _ : state) {
    std::string out;
    ptxdwarf::print::statisticsJson("bench.ptx", view::computeStatistics(r.module, dwarf), out);
    benchmark::DoNotOptimize(out);
  }
  setBytes(state);
}
BENCHMARK(BM_PhaseStatistics)->Unit(benchmark::kMillisecond);

void BM_PhaseTypes(benchmark::State& state) {
  ptx::ReadResult r = ptx::read(input(), "bench.ptx");
  read::Dwarf dwarf = read::decode(r.module.sections);
  for (auto _ : state) {
    std::string out;
    ptxdwarf::print::typesText(view::typeLayouts(dwarf), out);
    benchmark::DoNotOptimize(out);
  }
  setBytes(state);
}
BENCHMARK(BM_PhaseTypes)->Unit(benchmark::kMillisecond);

void BM_PhaseReencode(benchmark::State& state) {
  ptx::ReadResult r = ptx::read(input(), "bench.ptx");
  read::Dwarf dwarf = read::decode(r.module.sections);
  for (auto _ : state) {
    Diagnostics diags;
    benchmark::DoNotOptimize(write::encodeCanonical(dwarf, diags));
  }
  setBytes(state);
}
BENCHMARK(BM_PhaseReencode)->Unit(benchmark::kMillisecond);

// `ptxdump annotate` after the read: the builder, the encoder and the writer
// on every function, parameter and register of the file, the output streamed
// (as `annotate -o` writes it) and counted, not kept. The input is
// $PTXDWARF_BENCH_ANNOTATE_PTX (PTX without debug information: nvcc -O3
// output); without it the file above, its debug information replaced.
const std::string& annotateInput() {
  static const std::string text = fileOr("PTXDWARF_BENCH_ANNOTATE_PTX", [] { return input(); });
  return text;
}

void BM_PhaseAnnotate(benchmark::State& state) {
  const std::string& text = annotateInput();
  ptx::ReadResult r = ptx::read(text, "bench.ptx");
  write::AnnotateOptions options;
  options.replace = !std::getenv("PTXDWARF_BENCH_ANNOTATE_PTX");
  size_t out = 0;
  write::AnnotateStats stats;
  for (auto _ : state) {
    out = 0;
    write::Annotated a = write::annotate(text, r.module, options, [&](std::string_view piece) { out += piece.size(); });
    stats = a.stats;
  }
  state.counters["out_MB"] = static_cast<double>(out) / (1 << 20);
  state.counters["registers"] = static_cast<double>(stats.registerVariables);
  state.counters["locs"] = static_cast<double>(stats.locs);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_PhaseAnnotate)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
