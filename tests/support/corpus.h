// The real-producer corpus: every fixtures/corpus/*.cu program compiled by each
// producer (nvcc -G for sm_80/sm_90/sm_100, clang for sm_80) plus the hand-written
// PTX fixtures (fixtures/chapter6.ptx, fixtures/variants/*.ptx) and the PTX other
// producers wrote (fixtures/producers/*.ptx: Triton, Numba), each assembled by
// ptxas -g into a cubin under the build tree.
//
// Outputs are cached in workDir() behind a stamp holding a fingerprint of the
// commands, the tools and the inputs; they are written through temporary files and
// renamed into place, so concurrent test processes (ctest -j) never see partial files.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "tools.h"

namespace ptxdwarf::testsupport {

// nvcc -G, clang -g -O0, hand-written PTX; and the line-tables-only builds:
// nvcc -lineinfo -O3 (inlined code as `.loc ... inlined_at`) and clang
// -gline-tables-only -O2, which write `.file`/`.loc` and no DWARF sections.
// The newer LLVMs (Debian's clang-19/clang-22, llc-19/llc-22): the corpus
// programs through clang-N (-g -O0, -gline-tables-only -O2), and LLVM's own
// NVPTX debug-info tests (fixtures/llvm/*.ll) through llc-N; entries skip
// where the tool is absent.
enum class Producer {
  nvcc, clang, fixture, nvccLineinfo, clangLineTables,
  clang19, clang22, clang19Lines, clang22Lines, llc19, llc22
};
// "nvcc", "clang", "fixture", "nvcc_lineinfo", "clang_lines", "clang19", "clang22",
// "clang19_lines", "clang22_lines", "llc19", "llc22"
std::string_view producerName(Producer p);
bool isLineTablesOnly(Producer p);
// 19 or 22 for the newer LLVMs' producers; 0 for the rest.
int llvmVersion(Producer p);

struct CorpusEntry {
  std::string id;       // unique, [A-Za-z0-9_]: "structs_nvcc_sm_90", "variant_crlf", "fixture_chapter6"
  std::string program;  // "structs", "crlf", "chapter6"
  Producer producer = Producer::fixture;
  std::string arch;     // -arch for the producer and ptxas: "sm_90"
  std::string source;   // the .cu or .ptx
  // From a "ptxdwarf-corpus: ptxas-rejects <message>" marker in the source (for an
  // llc entry "llc19-ptxas-rejects"/"llc22-ptxas-rejects"): ptxas is
  // expected to fail with <message> in its stderr.
  bool expectPtxasFailure = false;
  std::string expectedPtxasMessage;
  // From a "ptxdwarf-corpus: no-clang <reason>" marker: corpusEntries() leaves the
  // program's clang entries out (prepare() would skip one made by hand).
  std::string skipReason;
  // From a "ptxdwarf-corpus: nvcc-flags <flags>" marker: more nvcc options
  // (-rdc=true, -src-in-ptx), placed after -G -ptx -arch.
  std::vector<std::string> nvccFlags;
};

// Test names and failure messages show the entry's id, not a dump of its
// bytes (declared here so that every test file's printer finds it).
void PrintTo(const CorpusEntry& entry, std::ostream* os);

std::string fixturesDir();
// The contents of fixtures/<name>; empty when it cannot be read.
std::string readFixture(std::string_view name);  // PTXDWARF_FIXTURES (compile definition), or $PTXDWARF_FIXTURES
std::string workDir();      // $PTXDWARF_CORPUS_WORKDIR, PTXDWARF_CORPUS_WORKDIR, or /tmp/ptxdwarf-corpus-<uid>

// All entries, sorted by id. Programs × {nvcc sm_80, nvcc sm_90, nvcc sm_100, clang sm_80},
// then variants/*.ptx and the top-level fixtures (chapter6.ptx) for their target
// (raised to sm_75, the oldest -arch ptxas 13 accepts).
// Programs marked no-clang have no clang entries.
std::vector<CorpusEntry> corpusEntries();
// The entries ptxas assembles (not marked ptxas-rejects): for the tests that need a cubin.
std::vector<CorpusEntry> assembledEntries();

struct PreparedEntry {
  enum class Status {
    ready,          // ptxPath and cubinPath exist
    skipped,        // a tool is missing or the entry is marked; see message
    failed,         // the producer or ptxas failed unexpectedly; see message
    ptxasRejected,  // expectPtxasFailure and ptxas did fail; ptxasResult holds its output
  };
  Status status = Status::failed;
  std::string message;
  std::string ptxPath;
  std::string cubinPath;
  CommandResult ptxasResult;  // set when ptxas ran in this call
  bool fromCache = false;
};

// Produces (or reuses) the PTX and the cubin for one entry.
PreparedEntry prepare(const CorpusEntry& entry);

}  // namespace ptxdwarf::testsupport
