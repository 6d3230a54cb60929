#include "ptxdwarf/check/sources.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <system_error>

#include "checker.h"
#include "ptxdwarf/dwarf.h"

namespace ptxdwarf::check {

namespace {

using namespace dw;
constexpr const char* kRule = "source-file";

bool isAbsolute(std::string_view p) { return !p.empty() && p.front() == '/'; }

// gdb's prepare_path_for_appending: "/foo" => "foo" and "./foo" => "foo",
// repeated while either applies, before a directory is put in front.
std::string_view forAppending(std::string_view p) {
  for (size_t before = p.size() + 1; before != p.size();) {
    before = p.size();
    while (!p.empty() && p.front() == '/') p.remove_prefix(1);
    while (p.starts_with("./")) p.remove_prefix(2);
  }
  return p;
}

std::string join(std::string_view dir, std::string_view rest) {
  std::string out(dir);
  if (!out.empty() && out.back() != '/') out += '/';
  out += rest;
  return out;
}

std::string_view baseName(std::string_view p) {
  const size_t slash = p.rfind('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

bool readableFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream f(path, std::ios::binary);
  return f.good();
}

bool isDirectory(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec);
}

// What a producer that wrote this path is known for, said in one clause.
std::string hint(std::string_view path) {
  if (baseName(path) == "default_program")
    return " (NVRTC's name for a program created without one: name it in nvrtcCreateProgram, or remap it with "
           "`ptxdump reformat --remap-path`)";
  if (path.starts_with("/tmp/") || path.starts_with("/var/tmp/"))
    return " (a temporary file: keep the source, or point the path at a copy with `ptxdump reformat --remap-path`)";
  return "";
}

// Rule "source-file", warnings: each `.file` path, each DW_AT_decl_file
// index naming such a `.file` (once per index, at its first use), each unit
// DIE's DW_AT_name that resolves to no readable file, and each
// DW_AT_comp_dir that is no directory. `directory`: DIR of --sources=DIR.
class SourceChecker {
 public:
  SourceChecker(const ptx::Module& m, const read::Dwarf& d, const std::string& directory, Diagnostics& out)
      : m_(m), d_(d), directory_(directory), out_(out) {}

  void run() {
    const std::string compDir = firstCompDir();
    std::map<unsigned, const ptx::FileEntry*> unresolvedFiles;
    for (const ptx::FileEntry& f : m_.files) {
      if (resolves(f.path, compDir)) continue;
      unresolvedFiles[f.index] = &f;
      warn(f.loc, ".file " + std::to_string(f.index) + " \"" + f.path + "\": " + notFound(f.path));
    }
    for (const read::Unit& u : d_.units) unit(u, unresolvedFiles);
  }

 private:
  // The directory relative `.file` paths are taken from: the line table's
  // directory 0, which ptxas makes the (first) unit's DW_AT_comp_dir.
  std::string firstCompDir() const {
    for (const read::Unit& u : d_.units)
      if (const read::Die* root = rootOf(u))
        if (std::optional<read::AttrValue> v = d_.attribute(*root, DW_AT_comp_dir)) return std::string(v->string());
    return {};
  }

  const read::Die* rootOf(const read::Unit& u) const {
    for (uint32_t i = 0; i < u.dieCount; ++i)
      if (!d_.dies[u.firstDie + i].isNull()) return &d_.dies[u.firstDie + i];
    return nullptr;
  }

  void unit(const read::Unit& u, const std::map<unsigned, const ptx::FileEntry*>& unresolvedFiles) {
    const read::Die* root = rootOf(u);
    if (!root) return;
    std::string compDir;
    if (std::optional<read::AttrValue> dir = d_.attribute(*root, DW_AT_comp_dir); dir && dir->isString()) {
      compDir = std::string(dir->string());
      if (!compDir.empty() && !isDirectory(compDir))
        warnAt(*dir, "DW_AT_comp_dir \"" + compDir + "\" is no directory here" + hint(compDir));
    }
    if (std::optional<read::AttrValue> name = d_.attribute(*root, DW_AT_name); name && name->isString()) {
      const std::string path(name->string());
      if (!resolves(path, compDir)) warnAt(*name, "the unit's DW_AT_name \"" + path + "\": " + notFound(path));
    }
    // Each DW_AT_decl_file index once, where it is first used.
    std::map<unsigned, bool> reported;
    for (uint32_t i = 0; i < u.dieCount; ++i) {
      const read::Die& die = d_.dies[u.firstDie + i];
      if (die.isNull()) continue;
      for (const read::AttrValue& v : d_.attributes(die)) {
        if (v.name != DW_AT_decl_file || !v.isConstant()) continue;
        auto it = unresolvedFiles.find(static_cast<unsigned>(v.value));
        if (it == unresolvedFiles.end() || reported[it->first]) continue;
        reported[it->first] = true;
        warnAt(v, "DW_AT_decl_file " + std::to_string(it->first) + " names \"" + it->second->path +
                      "\" (.file at line " + std::to_string(it->second->loc.line) + "), which no debugger can open");
      }
    }
  }

  bool resolves(const std::string& path, std::string_view compDir) {
    if (path.empty()) return false;
    auto [it, added] = resolved_.try_emplace(path + '\0' + std::string(compDir), false);
    if (added)
      for (const std::string& c : sourceCandidates(path, compDir, directory_))
        if (readableFile(c)) {
          it->second = true;
          break;
        }
    return it->second;
  }

  std::string notFound(std::string_view path) const {
    return std::string("no readable source file (looked for as gdb does: the path") +
           (directory_.empty() ? "" : ", then in " + directory_) +
           ", the compile directory and the working directory, then its base name there)" + hint(path);
  }

  void warn(SourceLoc at, std::string message) {
    Diagnostic& d = out_.warning(at, std::move(message));
    d.rule = kRule;
  }
  void warnAt(const read::AttrValue& v, std::string message) {
    Diagnostic& d = out_.warning(d_.info->locate(v.offset), std::move(message));
    d.rule = kRule;
    d.section = ".debug_info";
    d.offset = static_cast<int64_t>(v.offset);
  }

  const ptx::Module& m_;
  const read::Dwarf& d_;
  const std::string& directory_;
  Diagnostics& out_;
  std::map<std::string, bool> resolved_;
};

}  // namespace

std::vector<std::string> sourceCandidates(std::string_view path, std::string_view compDir, std::string_view directory) {
  std::vector<std::string_view> sourcePath;  // gdb: `directory DIR` goes before $cdir:$cwd
  if (!directory.empty()) sourcePath.push_back(directory);
  if (!compDir.empty()) sourcePath.push_back(compDir);
  std::error_code ec;
  const std::string cwd = std::filesystem::current_path(ec).string();
  sourcePath.push_back(ec ? std::string_view(".") : std::string_view(cwd));

  std::vector<std::string> out;
  auto openp = [&](std::string_view name) {  // gdb's openp with OPF_SEARCH_IN_PATH
    if (isAbsolute(name)) out.emplace_back(name);
    for (std::string_view dir : sourcePath) out.push_back(join(dir, forAppending(name)));
  };
  openp(path);
  if (!compDir.empty()) openp(join(compDir, forAppending(path)));
  if (baseName(path) != path) openp(baseName(path));
  return out;
}

void Checker::sourceFiles() { SourceChecker(module_, dwarf_, run_.options.sourceDirectory, out_).run(); }

}  // namespace ptxdwarf::check
