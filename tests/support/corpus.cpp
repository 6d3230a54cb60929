#include "corpus.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace ptxdwarf::testsupport {
namespace {

constexpr std::string_view kMarker = "ptxdwarf-corpus:";
constexpr int kOldestPtxasArch = 75;  // ptxas 13 knows sm_75 and newer

struct Target {
  Producer producer;
  const char* arch;
};
constexpr Target kTargets[] = {
    {Producer::nvcc, "sm_80"},
    {Producer::nvcc, "sm_90"},
    {Producer::nvcc, "sm_100"},
    {Producer::clang, "sm_80"},
    {Producer::nvccLineinfo, "sm_90"},
    {Producer::clangLineTables, "sm_80"},
    {Producer::clang19, "sm_80"},
    {Producer::clang22, "sm_80"},
    {Producer::clang19Lines, "sm_80"},
    {Producer::clang22Lines, "sm_80"},
};

bool isClang(Producer p) {
  return p == Producer::clang || p == Producer::clangLineTables || p == Producer::clang19 ||
         p == Producer::clang22 || p == Producer::clang19Lines || p == Producer::clang22Lines;
}

// Top-level fixtures that are complete, valid PTX for ptxas.
constexpr const char* kTopLevelFixtures[] = {"chapter6.ptx"};

std::string sanitize(std::string_view s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

uint64_t fnv1a(std::string_view data, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[size_t(i)] = digits[v & 15];
  return s;
}

// Reads the "ptxdwarf-corpus: <key> <rest of line>" markers of a source file.
// "-rdc=true -src-in-ptx" -> {"-rdc=true", "-src-in-ptx"}.
std::vector<std::string> splitWords(const std::string& text) {
  std::vector<std::string> words;
  size_t pos = 0;
  while ((pos = text.find_first_not_of(" \t", pos)) != std::string::npos) {
    size_t end = text.find_first_of(" \t", pos);
    words.push_back(text.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
    pos = end;
  }
  return words;
}

std::string marker(const std::string& text, std::string_view key) {
  size_t pos = 0;
  while ((pos = text.find(kMarker, pos)) != std::string::npos) {
    pos += kMarker.size();
    size_t eol = text.find_first_of("\r\n", pos);
    if (eol == std::string::npos) eol = text.size();
    std::string_view line(text.data() + pos, eol - pos);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.substr(0, key.size()) == key && (line.size() == key.size() || line[key.size()] == ' ')) {
      line.remove_prefix(key.size());
      while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
      return line.empty() ? std::string("(no reason given)") : std::string(line);
    }
  }
  return {};
}

// ".target sm_20, debug" -> "sm_75"; "sm_90a" stays.
std::string archForPtx(const std::string& text) {
  size_t pos = text.find(".target");
  if (pos == std::string::npos) return "sm_75";
  pos = text.find("sm_", pos);
  if (pos == std::string::npos) return "sm_75";
  size_t end = pos + 3;
  while (end < text.size() && std::isalnum(static_cast<unsigned char>(text[end]))) ++end;
  std::string arch = text.substr(pos, end - pos);
  int number = 0;
  for (size_t i = 3; i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])); ++i)
    number = number * 10 + (arch[i] - '0');
  return number < kOldestPtxasArch ? "sm_75" : arch;
}

std::vector<fs::path> listFiles(const fs::path& dir, std::string_view ext) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec) && e.path().extension() == ext) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string toolStamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return path + ":?";
  return path + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtime);
}

// Hash of a file's contents ("" when unreadable).
std::string contentHash(const fs::path& p) {
  auto text = readFile(p.string());
  return text ? hex(fnv1a(*text)) : std::string("unreadable");
}

PreparedEntry skipped(std::string why) {
  PreparedEntry p;
  p.status = PreparedEntry::Status::skipped;
  p.message = std::move(why);
  return p;
}

PreparedEntry failed(std::string why) {
  PreparedEntry p;
  p.status = PreparedEntry::Status::failed;
  p.message = std::move(why);
  return p;
}

// A producer or ptxas is not installed: a skip, or a failure where the build requires them.
PreparedEntry missingTool(std::string why) {
  return toolsRequired() ? failed("required tool missing: " + why) : skipped(std::move(why));
}

bool exists(const std::string& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

}  // namespace

std::string_view producerName(Producer p) {
  switch (p) {
    case Producer::nvcc: return "nvcc";
    case Producer::clang: return "clang";
    case Producer::fixture: return "fixture";
    case Producer::nvccLineinfo: return "nvcc_lineinfo";
    case Producer::clangLineTables: return "clang_lines";
    case Producer::clang19: return "clang19";
    case Producer::clang22: return "clang22";
    case Producer::clang19Lines: return "clang19_lines";
    case Producer::clang22Lines: return "clang22_lines";
    case Producer::llc19: return "llc19";
    case Producer::llc22: return "llc22";
  }
  return "?";
}

bool isLineTablesOnly(Producer p) {
  return p == Producer::nvccLineinfo || p == Producer::clangLineTables || p == Producer::clang19Lines ||
         p == Producer::clang22Lines;
}

int llvmVersion(Producer p) {
  switch (p) {
    case Producer::clang19:
    case Producer::clang19Lines:
    case Producer::llc19: return 19;
    case Producer::clang22:
    case Producer::clang22Lines:
    case Producer::llc22: return 22;
    default: return 0;
  }
}

std::string fixturesDir() {
  if (const char* env = std::getenv("PTXDWARF_FIXTURES"); env && *env) return env;
#ifdef PTXDWARF_FIXTURES
  return PTXDWARF_FIXTURES;
#else
  return "fixtures";
#endif
}

std::string workDir() {
  if (const char* env = std::getenv("PTXDWARF_CORPUS_WORKDIR"); env && *env) return env;
#ifdef PTXDWARF_CORPUS_WORKDIR
  return PTXDWARF_CORPUS_WORKDIR;
#else
  return "/tmp/ptxdwarf-corpus-" + std::to_string(::getuid());
#endif
}

std::vector<CorpusEntry> corpusEntries() {
  std::vector<CorpusEntry> entries;
  const fs::path fixtures(fixturesDir());

  for (const auto& cu : listFiles(fixtures / "corpus", ".cu")) {
    const std::string text = readFile(cu.string()).value_or("");
    const std::string program = cu.stem().string();
    for (const auto& t : kTargets) {
      CorpusEntry e;
      e.program = program;
      e.producer = t.producer;
      e.arch = t.arch;
      e.source = cu.string();
      e.id = sanitize(program + "_" + std::string(producerName(t.producer)) + "_" + t.arch);
      if (isClang(t.producer)) e.skipReason = marker(text, "no-clang");
      if (t.producer == Producer::nvcc || t.producer == Producer::nvccLineinfo)
        e.nvccFlags = splitWords(marker(text, "nvcc-flags"));
      entries.push_back(std::move(e));
    }
  }

  auto addPtx = [&](const fs::path& ptx, std::string_view prefix) {
    const std::string text = readFile(ptx.string()).value_or("");
    CorpusEntry e;
    e.program = ptx.stem().string();
    e.producer = Producer::fixture;
    e.arch = archForPtx(text);
    e.source = ptx.string();
    e.id = sanitize(std::string(prefix) + "_" + e.program);
    e.expectedPtxasMessage = marker(text, "ptxas-rejects");
    e.expectPtxasFailure = !e.expectedPtxasMessage.empty();
    entries.push_back(std::move(e));
  };
  // LLVM's NVPTX debug-info tests, compiled by llc-19 and llc-22 (fixtures/llvm/README.md).
  // A "ptxdwarf-corpus: llc19-ptxas-rejects <message>" marker: ptxas rejects what that llc writes.
  for (const auto& ll : listFiles(fixtures / "llvm", ".ll")) {
    const std::string text = readFile(ll.string()).value_or("");
    for (Producer llc : {Producer::llc19, Producer::llc22}) {
      CorpusEntry e;
      e.expectedPtxasMessage = marker(text, std::string(producerName(llc)) + "-ptxas-rejects");
      e.expectPtxasFailure = !e.expectedPtxasMessage.empty();
      e.program = ll.stem().string();
      e.producer = llc;
      e.arch = "sm_75";
      e.source = ll.string();
      e.id = sanitize("llvm_" + e.program + "_" + std::string(producerName(llc)));
      entries.push_back(std::move(e));
    }
  }
  for (const auto& ptx : listFiles(fixtures / "variants", ".ptx")) addPtx(ptx, "variant");
  for (const auto& ptx : listFiles(fixtures / "producers", ".ptx")) addPtx(ptx, "producer");
  for (const char* name : kTopLevelFixtures) {
    if (exists((fixtures / name).string())) addPtx(fixtures / name, "fixture");
  }

  // A program marked no-clang has no clang entries: a test instantiated for one could only skip.
  std::erase_if(entries, [](const CorpusEntry& e) { return !e.skipReason.empty(); });
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return entries;
}

std::vector<CorpusEntry> assembledEntries() {
  std::vector<CorpusEntry> entries = corpusEntries();
  std::erase_if(entries, [](const CorpusEntry& e) { return e.expectPtxasFailure; });
  return entries;
}

void PrintTo(const CorpusEntry& entry, std::ostream* os) { *os << entry.id; }

PreparedEntry prepare(const CorpusEntry& entry) {
  if (!entry.skipReason.empty()) return skipped(entry.id + ": marked no-clang: " + entry.skipReason);

  const fs::path fixtures(fixturesDir());
  const fs::path include = fixtures / "corpus" / "include";
  const fs::path work(workDir());
  std::error_code ec;
  fs::create_directories(work, ec);
  if (ec) return failed("cannot create work dir " + work.string() + ": " + ec.message());

  const auto ptxas = findTool("ptxas");
  if (!ptxas) return missingTool("ptxas not found (PATH, /usr/local/cuda/bin)");

  // The producer command (empty for hand-written PTX).
  std::vector<std::string> produce;
  std::string ptxPath = entry.source;
  const std::string tag = "." + std::to_string(::getpid()) + ".tmp";
  if (entry.producer != Producer::fixture) {
    ptxPath = (work / (entry.id + ".ptx")).string();
    const std::string tmpPtx = (work / (entry.id + tag + ".ptx")).string();
    if (entry.producer == Producer::nvcc || entry.producer == Producer::nvccLineinfo) {
      const auto nvcc = findTool("nvcc");
      if (!nvcc) return missingTool("nvcc not found (PATH, /usr/local/cuda/bin)");
      produce = {*nvcc};
      if (entry.producer == Producer::nvcc) produce.push_back("-G");
      else produce.insert(produce.end(), {"-lineinfo", "-O3"});
      produce.insert(produce.end(), {"-ptx", "-arch=" + entry.arch, "-I" + include.string()});
      produce.insert(produce.end(), entry.nvccFlags.begin(), entry.nvccFlags.end());
      produce.insert(produce.end(), {entry.source, "-o", tmpPtx});
    } else if (entry.producer == Producer::llc19 || entry.producer == Producer::llc22) {
      const std::string name = "llc-" + std::to_string(llvmVersion(entry.producer));
      const auto llc = findTool(name);
      if (!llc) return skipped(name + " not found (PATH): Debian's llvm-" + std::to_string(llvmVersion(entry.producer)));
      // PTX 7.0: LLVM's tests ask for it where they label sections (ptxas: labels in .section need 7.0).
      produce = {*llc, "-mtriple=nvptx64-nvidia-cuda", "-mcpu=" + entry.arch, "-mattr=+ptx70", entry.source, "-o",
                 tmpPtx};
    } else {
      const int version = llvmVersion(entry.producer);
      const std::string name = version ? "clang-" + std::to_string(version) : "clang";
      auto clang = findTool(name);
      if (!clang && !version) clang = findTool("clang-14");
      // The newer LLVMs are optional producers (Debian's clang-19/-22): without them their entries skip.
      if (!clang) return version ? skipped(name + " not found (PATH)") : missingTool(name + " not found (PATH)");
      produce = {*clang, "-x", "cuda", "--cuda-device-only", "-S"};
      if (!isLineTablesOnly(entry.producer)) produce.insert(produce.end(), {"-g", "-O0"});
      else produce.insert(produce.end(), {"-gline-tables-only", "-O2"});
      produce.insert(produce.end(), {"--cuda-gpu-arch=" + entry.arch, "-nocudainc", "-nocudalib",
                                     "-Wno-unknown-cuda-version", "-I" + include.string(), "-include",
                                     (include / "clang_prelude.h").string(), entry.source, "-o", tmpPtx});
    }
  }
  const std::string cubinPath = (work / (entry.id + ".cubin")).string();
  const std::string tmpCubin = (work / (entry.id + tag + ".cubin")).string();
  std::vector<std::string> assemble = {*ptxas, "-arch=" + entry.arch, "-g", ptxPath, "-o", tmpCubin};

  // Fingerprint: commands (without the temporary names), tools, input contents.
  std::string fp = "v1\n";
  auto addCommand = [&](const std::vector<std::string>& argv, const std::string& tmp) {
    for (const auto& a : argv) fp += (a == tmp ? std::string("<out>") : a) + "\x1f";
    if (!argv.empty()) fp += "\n" + toolStamp(argv[0]) + "\n";
  };
  addCommand(produce, produce.empty() ? std::string() : produce.back());
  addCommand(assemble, tmpCubin);
  fp += entry.source + "=" + contentHash(entry.source) + "\n";
  if (entry.producer != Producer::fixture) {
    for (const auto& h : listFiles(include, ".h")) fp += h.string() + "=" + contentHash(h) + "\n";
  }
  const std::string stampPath = (work / (entry.id + ".stamp")).string();
  const std::string stamp = hex(fnv1a(fp)) + "\n" + fp;

  PreparedEntry result;
  result.ptxPath = ptxPath;
  result.cubinPath = cubinPath;
  if (!entry.expectPtxasFailure && exists(ptxPath) && exists(cubinPath) &&
      readFile(stampPath).value_or("") == stamp) {
    result.status = PreparedEntry::Status::ready;
    result.fromCache = true;
    return result;
  }

  std::string err;
  if (!produce.empty()) {
    const std::string tmpPtx = produce.back();
    CommandResult r = runCommand(produce);
    if (!r.ok() || !exists(tmpPtx)) {
      fs::remove(tmpPtx, ec);
      return failed(std::string(producerName(entry.producer)) + " failed: " + formatCommand(produce) + "\n" +
                    r.summary());
    }
    fs::rename(tmpPtx, ptxPath, ec);
    if (ec) return failed("cannot rename " + tmpPtx + " to " + ptxPath + ": " + ec.message());
  }

  result.ptxasResult = runCommand(assemble);
  const bool assembled = result.ptxasResult.ok() && exists(tmpCubin);
  if (entry.expectPtxasFailure) {
    fs::remove(tmpCubin, ec);
    if (assembled) {
      return failed("ptxas was expected to reject " + entry.source + " (\"" + entry.expectedPtxasMessage +
                    "\") but accepted it: " + formatCommand(assemble));
    }
    if (result.ptxasResult.err.find(entry.expectedPtxasMessage) == std::string::npos &&
        result.ptxasResult.out.find(entry.expectedPtxasMessage) == std::string::npos) {
      return failed("ptxas rejected " + entry.source + " but without the expected message \"" +
                    entry.expectedPtxasMessage + "\": " + result.ptxasResult.summary());
    }
    result.status = PreparedEntry::Status::ptxasRejected;
    result.message = result.ptxasResult.summary();
    result.cubinPath.clear();
    return result;
  }
  if (!assembled) {
    fs::remove(tmpCubin, ec);
    return failed("ptxas failed: " + formatCommand(assemble) + "\n" + result.ptxasResult.summary());
  }
  fs::rename(tmpCubin, cubinPath, ec);
  if (ec) return failed("cannot rename " + tmpCubin + " to " + cubinPath + ": " + ec.message());
  if (!writeFile(stampPath, stamp, &err)) return failed(err);
  result.status = PreparedEntry::Status::ready;
  return result;
}

std::string readFixture(std::string_view name) {
  return readFile(fixturesDir() + "/" + std::string(name)).value_or("");
}

}  // namespace ptxdwarf::testsupport
