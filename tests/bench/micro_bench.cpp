// Google Benchmark micro-benchmarks for the hot paths: operand scanning,
// LEB128, abbreviation lookup, DIE decode, expression decode, encode, PTX
// writing. Inputs are synthetic but shaped like nvcc -G output (one `.b8 N`
// per line, DWARF 2, register locations). Not timed assertions: run
// `ptxdwarf_bench` and read the numbers (tests/bench/README.md).
#include <benchmark/benchmark.h>

#include <string>

#include "../../libptxdwarf/src/ptx/lexer.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/leb128.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/read/expression.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/encode.h"
#include "ptxdwarf/write/ptx_writer.h"

using namespace ptxdwarf;

namespace {

// A unit with `functions` subprograms, each with parameters, locals in
// registers and a lexical block: the shape nvcc emits.
write::Builder syntheticUnit(int functions) {
  write::Builder b;
  b.compileUnit({.producer = "bench", .name = "bench.cu", .compDir = "/tmp"});
  write::DieId intType = b.baseType("int", dw::DW_ATE_signed, 4);
  for (int f = 0; f < functions; ++f) {
    std::string n = std::to_string(f);
    write::DieId sp = b.subprogram({.name = "work" + n, .linkageName = "_Z4work" + n + "i", .declFile = 1,
                                    .declLine = static_cast<unsigned>(f), .type = intType,
                                    .lowPc = write::SymbolRef{"$L__func_begin" + n},
                                    .highPc = write::SymbolRef{"$L__func_end" + n}});
    b.formalParameter(sp, {.name = "x", .declFile = 1, .declLine = 1, .type = intType,
                           .location = write::Location::reg("%r1")});
    write::DieId block = b.lexicalBlock(sp, {"$L__tmp" + n}, {"$L__tmp" + n + "_end"});
    for (int v = 0; v < 4; ++v)
      b.variable(block, {.name = "v" + std::to_string(v), .declFile = 1, .declLine = 2, .type = intType,
                         .location = write::Location::reg("%r" + std::to_string(v + 2))});
  }
  return b;
}

std::vector<SectionImage> syntheticImages(int functions) {
  write::Builder b = syntheticUnit(functions);
  Diagnostics diags;
  return write::encode(b.unit(), {}, diags);
}

std::string syntheticPtx(int functions, write::Style style) {
  std::vector<SectionImage> images = syntheticImages(functions);
  write::WriteOptions options;
  options.style = style;
  Diagnostics diags;
  return ".version 7.5\n.target sm_90\n.address_size 64\n" + write::writeSections(images, options, diags);
}

void BM_ScanNumbers(benchmark::State& state) {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += std::to_string(i % 256) + ",";
  for (auto _ : state) {
    uint64_t sum = 0;
    for (const char* p = text.data(); p < text.data() + text.size();) {
      ptx::NumberScan n = ptx::scanNumber(p, text.data() + text.size());
      sum += n.value;
      p = n.end + 1;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ScanNumbers);

void BM_ReadPtxOnePerLine(benchmark::State& state) {
  std::string text = syntheticPtx(static_cast<int>(state.range(0)), write::Style::onePerLine);
  for (auto _ : state) benchmark::DoNotOptimize(ptx::read(text, "bench.ptx"));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ReadPtxOnePerLine)->Arg(2000);

void BM_Uleb128(benchmark::State& state) {
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 100000; ++i) {
    uint64_t v = 0x257231u + static_cast<uint64_t>(i);
    do {
      uint8_t b = v & 0x7f;
      v >>= 7;
      bytes.push_back(v ? (b | 0x80) : b);
    } while (v);
  }
  for (auto _ : state) {
    ByteReader r(bytes);
    uint64_t sum = 0;
    while (!r.atEnd()) sum += r.uleb();
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
}
BENCHMARK(BM_Uleb128);

void BM_AbbrevLookup(benchmark::State& state) {
  std::vector<SectionImage> images = syntheticImages(10);
  read::Dwarf dwarf = read::decode(images);
  const read::AbbrevTable& table = dwarf.abbrevTables.at(0);
  uint64_t codes = table.abbrevs.size();
  for (auto _ : state) {
    for (uint64_t c = 1; c <= codes; ++c) benchmark::DoNotOptimize(table.find(c));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * codes));
}
BENCHMARK(BM_AbbrevLookup);

void BM_DecodeDies(benchmark::State& state) {
  std::vector<SectionImage> images = syntheticImages(static_cast<int>(state.range(0)));
  size_t bytes = 0;
  for (const SectionImage& s : images) bytes += s.size();
  for (auto _ : state) benchmark::DoNotOptimize(read::decode(images));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_DecodeDies)->Arg(2000);

void BM_DecodeExpressions(benchmark::State& state) {
  std::vector<uint8_t> expr;
  for (int i = 0; i < 1000; ++i) {
    expr.insert(expr.end(), {0x90, 0xb1, 0xe4, 0x95, 0x01});  // DW_OP_regx %r1
    expr.insert(expr.end(), {0x91, 0x70, 0x23, 0x08});        // fbreg -16, plus_uconst 8
  }
  for (auto _ : state) benchmark::DoNotOptimize(read::decodeExpression(expr, {8, 4, nullptr, 0}));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * expr.size()));
}
BENCHMARK(BM_DecodeExpressions);

void BM_Encode(benchmark::State& state) {
  write::Builder b = syntheticUnit(static_cast<int>(state.range(0)));
  size_t bytes = 0;
  for (auto _ : state) {
    Diagnostics diags;
    std::vector<SectionImage> images = write::encode(b.unit(), {}, diags);
    bytes = images[0].size();
    benchmark::DoNotOptimize(images);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_Encode)->Arg(2000);

void BM_WritePtx(benchmark::State& state) {
  std::vector<SectionImage> images = syntheticImages(2000);
  write::WriteOptions options;
  options.style = static_cast<write::Style>(state.range(0));
  size_t bytes = 0;
  for (auto _ : state) {
    Diagnostics diags;
    std::string out = write::writeSections(images, options, diags);
    bytes = out.size();
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.SetLabel(std::string(write::styleName(options.style)));
}
BENCHMARK(BM_WritePtx)
    ->Arg(static_cast<int>(write::Style::packed))
    ->Arg(static_cast<int>(write::Style::onePerLine))
    ->Arg(static_cast<int>(write::Style::dense));

}  // namespace

BENCHMARK_MAIN();
