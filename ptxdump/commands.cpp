#include "commands.h"

#include "ptxdwarf/check/check.h"
#include "ptxdwarf/write/ptx_writer.h"
#include "ptxdwarf/write/reencode.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <future>
#include <thread>
#include <cstdio>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ptxdump {

using namespace ptxdwarf;

bool readWholeFile(const std::string& path, std::string& text, std::string& error) {
  FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) {
    error = std::strerror(errno);
    return false;
  }
  text.clear();
  if (f != stdin && std::fseek(f, 0, SEEK_END) == 0) {
    long size = std::ftell(f);
    // Refuse before reading: a multi-gigabyte file would be held in memory whole.
    if (size > static_cast<long>(kMaxFileSize)) {
      std::fclose(f);
      error = "file is " + std::to_string(size) + " bytes; ptxdump reads PTX files of at most " +
              std::to_string(kMaxFileSize >> 20) + " MiB";
      return false;
    }
    if (size > 0) text.reserve(static_cast<size_t>(size));
    std::fseek(f, 0, SEEK_SET);
  }
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) {
    text.append(buffer, n);
    if (text.size() > kMaxFileSize) {  // a pipe or a file that grew
      if (f != stdin) std::fclose(f);
      error = "input exceeds " + std::to_string(kMaxFileSize >> 20) + " MiB";
      return false;
    }
  }
  bool failed = std::ferror(f);
  if (failed) error = std::strerror(errno);
  if (f != stdin) std::fclose(f);
  return !failed;
}

FileText::FileText(FileText&& other) noexcept
    : map_(std::exchange(other.map_, nullptr)), size_(std::exchange(other.size_, 0)), owned_(std::move(other.owned_)) {}

FileText& FileText::operator=(FileText&& other) noexcept {
  if (this != &other) {
    unmap();
    map_ = std::exchange(other.map_, nullptr);
    size_ = std::exchange(other.size_, 0);
    owned_ = std::move(other.owned_);
  }
  return *this;
}

void FileText::unmap() {
  if (map_) munmap(const_cast<char*>(map_), size_);
  map_ = nullptr;
  size_ = 0;
}

void FileText::release(uint64_t begin, uint64_t end) {
  if (!map_) return;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t first = (begin + page - 1) / page * page;  // pages wholly inside
  const uint64_t last = std::min<uint64_t>(end, size_) / page * page;
  if (first < last) madvise(const_cast<char*>(map_) + first, last - first, MADV_DONTNEED);
}

bool FileText::load(const std::string& path, std::string& error) {
  unmap();
  owned_.clear();
  int fd = path == "-" ? -1 : open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      static_cast<uint64_t>(st.st_size) <= kMaxFileSize) {
    // MAP_POPULATE maps every page in one call instead of faulting them in one by one.
    void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (p != MAP_FAILED) {
      map_ = static_cast<const char*>(p);
      size_ = static_cast<size_t>(st.st_size);
      return true;
    }
  } else if (fd >= 0) {
    close(fd);
  }
  // Empty files, pipes, stdin, files too large (readWholeFile says so) and failed maps.
  return readWholeFile(path, owned_, error);
}

namespace {

void appendDiagnostics(const Diagnostics& diags, const std::string& path, std::string& err) {
  for (const Diagnostic& d : diags.items) {
    err += d.format(path);
    if (!d.section.empty() && d.offset >= 0 && d.loc.line != 0) {  // else format() named the offset
      char buf[64];
      std::snprintf(buf, sizeof buf, " (%s+0x%llx)", d.section.c_str(), static_cast<unsigned long long>(d.offset));
      err += buf;
    }
    err += '\n';
  }
}

bool hasDebugSections(const ptx::Module& m) {
  for (const SectionImage& s : m.sections)
    if (s.name.starts_with(".debug")) return true;
  return false;
}

bool hasLineInformation(const ptx::Module& m) { return !m.files.empty() || !m.locs.empty(); }

// What a dump shows when the user named no section: the DIE tree, or for a
// file with line information and no DIEs (a -lineinfo build) its line table.
DumpOptions sectionsToShow(const DumpRequest& request, const ptx::Module& m) {
  DumpOptions s = request.sections;
  if (request.defaultSections && !m.section(".debug_info") && hasLineInformation(m)) {
    s.info = false;
    s.line = true;
  }
  return s;
}

}  // namespace

std::optional<LoadedFile> loadFile(const std::string& path, std::string& err, bool keepText, unsigned threads) {
  LoadedFile file;
  file.path = path;
  std::string error;
  if (!file.text.load(path, error)) {
    err += path + ": error: cannot read file: " + error + "\n";
    return std::nullopt;
  }
  ptx::ReadOptions options;
  options.threads = threads;
  options.index = false;  // built below, while the sections decode
  if (!keepText) options.consumed = [&](uint64_t begin, uint64_t end) { file.text.release(begin, end); };
  file.read = ptx::read(file.text.view(), path, options);
  if (!keepText) file.text.release(0, UINT64_MAX);
  appendDiagnostics(file.read.diagnostics, path, err);  // errors, or warnings worth knowing
  if (!file.read.ok()) return std::nullopt;
  if (threads == 1) {
    file.read.module.reindex();
    file.dwarf = read::decode(file.read.module.sections);
    return file;
  }
  // Decoding reads only the sections; indexing only the names: they share nothing.
  // (The future's destructor waits for the index if decode throws.)
  std::future<void> indexed = std::async(std::launch::async, [&module = file.read.module] { module.reindex(); });
  file.dwarf = read::decode(file.read.module.sections);
  indexed.get();
  return file;
}

int runDump(const DumpRequest& request, std::string& out, std::string& err) {
  int status = kOk;
  for (const std::string& path : request.files) {
    std::optional<LoadedFile> file = loadFile(path, err);
    if (!file) {
      status = kUnreadable;
      continue;
    }
    const ptx::Module& m = file->read.module;
    const DumpOptions sections = sectionsToShow(request, m);
    if (request.format == Format::json) {
      dumpJson(m, file->dwarf, sections, out);
    } else if (!hasDebugSections(m) && !hasLineInformation(m)) {
      out += path + ": no debug sections\n";
      continue;
    } else {
      dumpText(m, file->dwarf, sections, out, request.stream);  // starts with llvm-dwarfdump's file line
    }
    if (file->dwarf.diagnostics.hasErrors()) {
      appendDiagnostics(file->dwarf.diagnostics, path, err);
      status = kUnreadable;
    }
  }
  return status;
}

int runExtract(const ExtractRequest& request, std::string& out, std::string& err) {
  std::optional<LoadedFile> file = loadFile(request.file, err);
  if (!file) return kUnreadable;
  std::string name = request.section;
  if (!name.starts_with('.')) name.insert(0, ".");
  const SectionImage* section = file->read.module.section(name);
  if (!section) {
    err += request.file + ": error: no section " + name + " in this file";
    const auto& sections = file->read.module.sections;
    if (sections.empty()) {
      err += " (it has no sections)";
    } else {
      err += " (it has:";
      for (const SectionImage& s : sections) err += " " + s.name;
      err += ")";
    }
    err += "\n";
    return kUnreadable;
  }
  if (!request.output.empty()) {
    std::string_view bytes(reinterpret_cast<const char*>(section->bytes.data()), section->bytes.size());
    if (request.output == "-") {
      out.append(bytes);
    } else {
      FILE* f = std::fopen(request.output.c_str(), "wb");
      bool ok = f && std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
      if (f && std::fclose(f) != 0) ok = false;
      if (!ok) {
        err += request.output + ": error: cannot write: " + std::strerror(errno) + "\n";
        return kUnreadable;
      }
    }
  }
  if (request.relocations) {
    char buf[48];
    for (const Relocation& r : section->relocations) {
      std::snprintf(buf, sizeof buf, "0x%08llx %u ", static_cast<unsigned long long>(r.offset), r.size);
      out += buf;
      out += r.expression();
      out += '\n';
    }
  }
  return kOk;
}

namespace {

struct CheckResult {
  std::string err;
  size_t errors = 0, warnings = 0;
  bool unreadable = false;
};

// `threads`: for reading the file; the cores `jobs` workers leave free.
CheckResult checkOne(const std::string& path, const CheckRequest& request, unsigned threads) {
  CheckResult r;
  std::optional<LoadedFile> file = loadFile(path, r.err, false, threads);
  if (!file) {
    r.unreadable = true;
    return r;
  }
  check::Options options;
  options.roundTrip = request.roundTrip;
  options.threads = threads;
  Diagnostics diags = check::run(file->read.module, file->dwarf, options);
  if (request.werror)
    for (Diagnostic& d : diags.items)
      if (d.severity == Severity::warning) d.severity = Severity::error;
  appendDiagnostics(diags, path, r.err);
  r.errors = diags.errorCount();
  r.warnings = diags.warningCount() + file->read.diagnostics.warningCount();
  return r;
}

}  // namespace

std::string listRules() {
  std::string out;
  for (const check::RuleInfo& r : check::rules()) {
    check::RuleBehaviour b = check::behaviour(r.id);
    char head[64];
    std::snprintf(head, sizeof head, "%-26.*s %-8.*s ", static_cast<int>(r.id.size()), r.id.data(),
                  static_cast<int>(severityName(b.severity).size()), severityName(b.severity).data());
    out += head;
    out += r.summary;
    out += "; ptxas: ";
    out += b.ptxas;
    out += '\n';
  }
  return out;
}

int runCheck(const CheckRequest& request, std::string& out, std::string& err) {
  // Files are independent: `jobs` workers take the next unchecked file; output
  // is printed afterwards in argument order, so it does not depend on timing.
  std::vector<CheckResult> results(request.files.size());
  std::atomic<size_t> next{0};
  unsigned jobs = std::max(1u, std::min<unsigned>(request.jobs, static_cast<unsigned>(request.files.size())));
  unsigned readThreads = std::max(1u, std::thread::hardware_concurrency() / jobs);
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < request.files.size();)
      results[i] = checkOne(request.files[i], request, readThreads);
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  size_t errors = 0, warnings = 0;
  bool unreadable = false;
  for (size_t i = 0; i < results.size(); ++i) {
    const CheckResult& r = results[i];
    err += r.err;
    errors += r.errors;
    warnings += r.warnings;
    unreadable |= r.unreadable;
    if (r.unreadable) {
      out += request.files[i] + ": not checked (cannot read or parse)\n";
    } else {
      out += request.files[i] + ": " + std::to_string(r.errors) + (r.errors == 1 ? " error, " : " errors, ") +
             std::to_string(r.warnings) + (r.warnings == 1 ? " warning\n" : " warnings\n");
    }
  }
  if (request.files.size() > 1)
    out += "total: " + std::to_string(request.files.size()) + " files, " + std::to_string(errors) +
           (errors == 1 ? " error, " : " errors, ") + std::to_string(warnings) +
           (warnings == 1 ? " warning\n" : " warnings\n");
  if (unreadable) return kUnreadable;
  return errors ? kProblems : kOk;
}

namespace {

bool writeOutput(const std::string& path, std::string_view data, std::string& out, std::string& err) {
  if (path.empty() || path == "-") {
    out.append(data);
    return true;
  }
  FILE* f = std::fopen(path.c_str(), "wb");
  bool ok = f && std::fwrite(data.data(), 1, data.size(), f) == data.size();
  if (f && std::fclose(f) != 0) ok = false;
  if (!ok) err += path + ": error: cannot write: " + std::strerror(errno) + "\n";
  return ok;
}

}  // namespace

int runReformat(const ReformatRequest& request, std::string& out, std::string& err) {
  std::optional<write::Style> style = write::parseStyle(request.style);
  if (!style) {
    err += "error: unknown style '" + request.style + "' (packed, one-per-line or verbose)\n";
    return kUnreadable;
  }
  std::optional<LoadedFile> file = loadFile(request.file, err, /*keepText=*/true);  // every other byte is kept
  if (!file) return kUnreadable;
  if (file->dwarf.diagnostics.hasErrors()) {
    appendDiagnostics(file->dwarf.diagnostics, request.file, err);
    return kUnreadable;
  }
  const ptx::Module& m = file->read.module;
  Diagnostics diags;
  std::vector<SectionImage> images;
  if (request.reencode) {
    images = write::encodeCanonical(file->dwarf, diags);
  } else {
    for (const SectionImage& s : m.sections)
      if (s.name.starts_with(".debug")) images.push_back(s);
  }
  // Verbose comments need the model of exactly these bytes (other styles use no model).
  const bool annotate = request.reencode && *style == write::Style::verbose;
  read::Dwarf annotated = annotate ? read::decode(images) : read::Dwarf{};
  write::WriteOptions options;
  options.style = *style;
  options.dwarf = request.reencode ? &annotated : &file->dwarf;
  std::optional<std::string> text;
  if (!diags.hasErrors()) text = write::reformat(file->text.view(), m, images, options, diags);
  appendDiagnostics(diags, request.file, err);
  if (!text) return kProblems;
  return writeOutput(request.output, *text, out, err) ? kOk : kUnreadable;
}

}  // namespace ptxdump
