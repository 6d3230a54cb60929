#include "commands.h"

#include "ptxdwarf/check/check.h"
#include "ptxdwarf/threads.h"
#include "ptxdwarf/write/ptx_writer.h"
#include "ptxdwarf/write/reencode.h"
#include "view_format.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>
#include <utility>

#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ptxdump {

using namespace ptxdwarf;

// One mapping the SIGBUS handler below knows (declared in commands.h).
struct GuardedMap {
  std::atomic<uintptr_t> begin{0}, end{0};  // begin == 1: slot being filled or emptied
  std::atomic<bool> shrank{false};
};

namespace {

std::string sizeLimitMessage() { return "ptxdump reads PTX files of at most " + std::to_string(kMaxFileSize >> 20) + " MiB"; }

// read(2) until `size` bytes or end of file, retrying interrupted calls.
// Returns the bytes read, or -1 with errno set.
ssize_t readFully(int fd, char* into, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, into + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

// Reads a stream (stdin, a pipe, a character device) chunk by chunk. PTX is
// text: a NUL byte stops the reading at once (the reader then reports its
// line and column), so /dev/zero or a binary pipe costs one chunk, not the
// whole size limit.
bool readStream(int fd, std::string& text, std::string& error) {
  constexpr size_t kChunk = 1 << 16;
  text.clear();
  for (;;) {
    const size_t before = text.size();
    text.resize(before + kChunk);
    ssize_t n = readFully(fd, text.data() + before, kChunk);
    if (n < 0) {
      error = std::strerror(errno);
      return false;
    }
    text.resize(before + static_cast<size_t>(n));
    if (const void* nul = std::memchr(text.data() + before, '\0', static_cast<size_t>(n))) {
      text.resize(static_cast<size_t>(static_cast<const char*>(nul) - text.data()) + 1);
      return true;
    }
    if (text.size() > kMaxFileSize) {
      error = "input exceeds " + std::to_string(kMaxFileSize >> 20) + " MiB; " + sizeLimitMessage();
      return false;
    }
    if (static_cast<size_t>(n) < kChunk) return true;  // end of input
  }
}

// ---- mapped files that shrink ----------------------------------------------
// A mapped file that another process truncates raises SIGBUS on the next
// access to a page past its new end. Each mapping is registered here; the
// handler puts a page of zeros over the faulting page of a registered mapping
// and marks it, and loadFile() turns the mark into an error. A fault anywhere
// else gets the default action (the process dies as it would have).

constexpr size_t kGuardSlots = 512;  // `check -j 256` maps at most 256 files at once
GuardedMap gGuarded[kGuardSlots];
size_t gPageSize = 4096;

void onSigbus(int, siginfo_t* info, void*) {
  const auto at = reinterpret_cast<uintptr_t>(info->si_addr);
  for (GuardedMap& m : gGuarded) {
    if (at < m.begin.load(std::memory_order_acquire) || at >= m.end.load(std::memory_order_acquire)) continue;
    void* page = reinterpret_cast<void*>(at & ~(gPageSize - 1));
    if (mmap(page, gPageSize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
      m.shrank.store(true, std::memory_order_release);
      return;  // the faulting read runs again and reads zeros
    }
  }
  signal(SIGBUS, SIG_DFL);  // not ours: returning re-raises it with the default action
}

void installSigbusHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    gPageSize = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    struct sigaction sa {};
    sa.sa_sigaction = onSigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, nullptr);
  });
}

GuardedMap* guard(const char* map, size_t size) {
  installSigbusHandler();
  for (GuardedMap& m : gGuarded) {
    uintptr_t empty = 0;
    if (!m.begin.compare_exchange_strong(empty, 1)) continue;
    m.shrank.store(false);
    m.end.store(reinterpret_cast<uintptr_t>(map) + size, std::memory_order_release);
    m.begin.store(reinterpret_cast<uintptr_t>(map), std::memory_order_release);
    return &m;
  }
  return nullptr;
}

void unguard(GuardedMap* m) {
  if (!m) return;
  m->begin.store(1, std::memory_order_release);
  m->end.store(0, std::memory_order_release);
  m->begin.store(0, std::memory_order_release);
}

}  // namespace

bool readWholeFile(const std::string& path, std::string& text, std::string& error) {
  FileText file;
  if (!file.load(path, error, /*map=*/false)) return false;
  text.assign(file.view());
  return true;
}

FileText::FileText(FileText&& other) noexcept
    : map_(std::exchange(other.map_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      guard_(std::exchange(other.guard_, nullptr)),
      owned_(std::move(other.owned_)) {}

FileText& FileText::operator=(FileText&& other) noexcept {
  if (this != &other) {
    unmap();
    map_ = std::exchange(other.map_, nullptr);
    size_ = std::exchange(other.size_, 0);
    guard_ = std::exchange(other.guard_, nullptr);
    owned_ = std::move(other.owned_);
  }
  return *this;
}

void FileText::unmap() {
  unguard(guard_);
  guard_ = nullptr;
  if (map_) munmap(const_cast<char*>(map_), size_);
  map_ = nullptr;
  size_ = 0;
}

bool FileText::shrank() const { return guard_ && guard_->shrank.load(std::memory_order_acquire); }

void FileText::release(uint64_t begin, uint64_t end) {
  if (!map_) return;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t first = (begin + page - 1) / page * page;  // pages wholly inside
  const uint64_t last = std::min<uint64_t>(end, size_) / page * page;
  if (first < last) madvise(const_cast<char*>(map_) + first, last - first, MADV_DONTNEED);
}

bool FileText::load(const std::string& path, std::string& error, bool map) {
  unmap();
  owned_.clear();
  if (path == "-") return readStream(STDIN_FILENO, owned_, error);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    error = std::strerror(errno);
    close(fd);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    error = "it is a directory, not a PTX file";
    return false;
  }
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kMaxFileSize) {
    close(fd);
    error = "file is " + std::to_string(st.st_size) + " bytes; " + sizeLimitMessage();
    return false;
  }
  if (map && S_ISREG(st.st_mode) && st.st_size > 0) {
    // MAP_POPULATE maps every page in one call instead of faulting them in one by one.
    void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (p != MAP_FAILED) {
      close(fd);
      map_ = static_cast<const char*>(p);
      size_ = static_cast<size_t>(st.st_size);
      guard_ = guard(map_, size_);
      if (guard_) return true;
      unmap();  // every slot taken: read it instead
      fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        error = std::strerror(errno);
        return false;
      }
    }
  }
  // Pipes, devices, empty files, failed maps.
  bool ok = readStream(fd, owned_, error);
  close(fd);
  return ok;
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

bool sameFile(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

namespace {

// write(2) all of `data`, retrying interrupted and partial writes.
bool writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

bool ReplacingFile::open(const std::string& path, std::string& error) {
  target_ = path;
  exists_ = stat(path.c_str(), &st_) == 0;
  if (exists_ && !S_ISREG(st_.st_mode)) {
    // /dev/null, /dev/stdout, a FIFO: nothing to replace, and no temporary
    // file belongs beside them.
    direct_ = true;
    fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) error = std::strerror(errno);
    return fd_ >= 0;
  }
  // A symbolic link stays one: its target is replaced.
  std::error_code ec;
  if (std::filesystem::is_symlink(path, ec)) {
    std::filesystem::path resolved = std::filesystem::weakly_canonical(path, ec);
    if (!ec) target_ = resolved.string();
  }
  for (unsigned attempt = 0; fd_ < 0 && attempt < 100; ++attempt) {
    temp_ = target_ + ".ptxdump-" + std::to_string(getpid()) + "-" + std::to_string(attempt) + ".tmp";
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // the umask applies
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) {
    error = std::strerror(errno);
    return false;
  }
  return true;
}

void ReplacingFile::write(std::string_view data) {
  if (ok_ && !writeAll(fd_, data)) {
    ok_ = false;
    errno_ = errno;
  }
}

bool ReplacingFile::commit(std::string& error) {
  bool ok = ok_;
  if (!ok) errno = errno_;
  if (!direct_) {
    if (ok && exists_) ok = fchmod(fd_, st_.st_mode & 07777) == 0;
    // Replacing a file, its data must be on disk before the rename: a crash
    // in between must not cost the old file (`annotate x.ptx -o x.ptx`). A
    // new file needs no such wait (fsync of 70 MB is a fifth of a second
    // here), as compilers write theirs; write() and close() still report
    // a failure (a full disk, NFS errors at close).
    if (ok && exists_) ok = fsync(fd_) == 0;
  }
  if (!ok) error = std::strerror(errno);
  if (close(fd_) != 0 && ok) {
    error = std::strerror(errno);
    ok = false;
  }
  fd_ = -1;
  if (!direct_ && ok && std::rename(temp_.c_str(), target_.c_str()) != 0) {
    error = std::strerror(errno);
    ok = false;
  }
  if (!direct_ && !ok) unlink(temp_.c_str());
  return ok;
}

void PiecewiseFile::write(std::string_view piece) {
  if (!file_.isOpen() && openError_.empty()) file_.open(path_, openError_);
  if (file_.isOpen()) file_.write(piece);
}

bool PiecewiseFile::commit(std::string& err) {
  if (!file_.isOpen() && openError_.empty()) file_.open(path_, openError_);  // an empty text
  std::string error = openError_;
  if (error.empty()) file_.commit(error);
  if (error.empty()) return true;
  err += path_ + ": error: cannot write: " + error + "\n";
  return false;
}

ReplacingFile::~ReplacingFile() {
  if (fd_ < 0) return;
  close(fd_);
  if (!direct_) unlink(temp_.c_str());
}

bool writeFileReplacing(const std::string& path, std::string_view data, std::string& error) {
  ReplacingFile file;
  if (!file.open(path, error)) return false;
  file.write(data);
  return file.commit(error);
}

// A parallel read builds its parts on worker threads, in their malloc arenas,
// and frees them once they are joined. The allocator keeps freed memory
// (tuneAllocator, main.cpp), and the main thread, which allocates from here
// on, does not reuse another thread's arena: given back, the parts no longer
// count towards the peak (6-8 MB of 55 for a 20 MB nvcc -G file's check; the
// call takes 1.5 ms).
namespace {
void returnPartsMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}
}  // namespace

constexpr const char* kShrankMessage = "cannot read file: it shrank while it was being read";

std::optional<LoadedFile> loadFile(const std::string& path, std::string& err, const LoadOptions& load) {
  LoadedFile file;
  file.path = path;
  std::string error;
  const unsigned threads = load.threads ? load.threads : ptxdwarf::usableThreads();
  ptxdwarf::startThreads(threads);  // awake by the time the text is mapped and scanned
  if (!file.text.load(path, error)) {
    err += path + ": error: cannot read file: " + error + "\n";
    return std::nullopt;
  }
  ptx::ReadOptions options;
  options.threads = threads;
  options.index = false;  // built below, while the sections decode
  options.bodies = load.bodies;
  // The text lives as long as the module (LoadedFile): the positions of
  // section operands are found in it when a diagnostic needs them.
  if (file.text.mapped()) options.operandPositions = ptx::ReadOptions::OperandPositions::fromText;
  if (!load.keepText) options.consumed = [&](uint64_t begin, uint64_t end) { file.text.release(begin, end); };
  file.read = ptx::read(file.text.view(), path, options);
  if (!load.keepText) file.text.release(0, UINT64_MAX);
  if (threads > 1) returnPartsMemory();
  if (file.text.shrank()) {
    err += path + ": error: " + kShrankMessage + "\n";
    return std::nullopt;
  }
  appendDiagnostics(file.read.diagnostics, path, err);  // errors, or warnings worth knowing
  if (!file.read.ok()) return std::nullopt;
  if (!file.read.module.version.present) {
    // ptxas: "Missing .version directive at start of file" -- an empty file
    // included: it is not PTX, not a PTX file without debug information.
    err += path + ":1:1: error: no .version directive: this is not PTX (ptxas rejects a file without one)\n";
    return std::nullopt;
  }
  ptx::Module& module = file.read.module;
  if (!load.nameIndex) {
    module.indexFiles();
    file.dwarf = read::decode(module.sections);
    return file;
  }
  if (threads == 1) {
    module.reindex();
    file.dwarf = read::decode(module.sections);
    return file;
  }
  // Decoding reads only the sections; indexing only the names: they share
  // nothing. The decode is the longer.
  ptxdwarf::runConcurrently([&] { file.dwarf = read::decode(module.sections); }, [&module] { module.reindex(); });
  return file;
}

int runDump(const DumpRequest& request, std::string& out, std::string& err) {
  int status = kOk;
  if (request.format == Format::json && !request.sections.names.empty()) {
    err += "ptxdump: error: --name selects DIEs of the text dump (llvm-dwarfdump's); it has no JSON form\n";
    return kUnreadable;
  }
  if (std::string error; !validNamePatterns(request.sections, error)) {
    err += "ptxdump: " + error + "\n";
    return kUnreadable;
  }
  // The DIE tree, the location lists and the other sections need nothing
  // of the code; the line table and the statistics need all of it.
  const bool bodies = request.statistics || request.sections.line;
  for (const std::string& path : request.files) {
    std::string readErr;  // the read's warnings: said once, by the read that is kept
    std::optional<LoadedFile> file = loadFile(path, readErr, {.nameIndex = request.statistics, .bodies = bodies});
    // Without .debug_info a plain dump may show the line table instead, or
    // say there is nothing to show: both depend on the `.loc` lines.
    if (file && !bodies && !file->read.module.section(".debug_info")) {
      readErr.clear();
      file = loadFile(path, readErr, {.nameIndex = false});
    }
    err += readErr;
    if (!file) {
      status = kUnreadable;
      continue;
    }
    const ptx::Module& m = file->read.module;
    if (request.statistics) {
      appendStatisticsJson(path, ptxdwarf::view::computeStatistics(m, file->dwarf), out);
      if (file->dwarf.diagnostics.hasErrors()) {
        appendDiagnostics(file->dwarf.diagnostics, path, err);
        status = kUnreadable;
      }
      continue;
    }
    const DumpOptions sections = sectionsToShow(request, m);
    if (request.format != Format::text) {
      dumpJson(m, file->dwarf, sections, out, request.stream, request.format == Format::jsonLines);
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

int runTypes(const TypesRequest& request, std::string& out, std::string& err) {
  // Type layouts are the DWARF's alone: no code, no symbols.
  std::optional<LoadedFile> file = loadFile(request.file, err, {.nameIndex = false, .bodies = false});
  if (!file) return kUnreadable;
  std::vector<ptxdwarf::view::TypeLayout> types = ptxdwarf::view::typeLayouts(file->dwarf);
  if (!request.names.empty()) {
    const ptxdwarf::read::Dwarf& d = file->dwarf;
    std::erase_if(types, [&](const ptxdwarf::view::TypeLayout& t) {
      const ptxdwarf::read::Die* die = d.dieAt(t.die);
      std::string_view plain = die ? d.name(*die) : std::string_view();
      return std::none_of(request.names.begin(), request.names.end(),
                          [&](const std::string& n) { return n == t.name || (!plain.empty() && n == plain); });
    });
  }
  if (request.format == Format::json)
    appendTypesJson(request.file, types, out);
  else
    appendTypesText(types, out);
  int status = kOk;
  if (file->dwarf.diagnostics.hasErrors()) {
    appendDiagnostics(file->dwarf.diagnostics, request.file, err);
    status = kUnreadable;
  }
  if (types.empty() && !request.names.empty() && status == kOk) {
    err += request.file + ": no type named";
    for (const std::string& n : request.names) err += " '" + n + "'";
    err += "\n";
    status = kProblems;
  }
  return status;
}

int runExtract(const ExtractRequest& request, std::string& out, std::string& err) {
  // Raw section bytes over the PTX they came from would lose the PTX.
  if (!request.output.empty() && request.output != "-" && sameFile(request.file, request.output)) {
    err += request.output + ": error: -o names the input file; the section's bytes would replace the PTX\n";
    return kUnreadable;
  }
  std::optional<LoadedFile> file = loadFile(request.file, err, {.nameIndex = false, .bodies = false});  // the bytes only
  if (!file) return kUnreadable;
  if (request.section.empty()) {
    err += request.file + ": error: --section: the section name is empty\n";
    return kUnreadable;
  }
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
    } else if (std::string error; !writeFileReplacing(request.output, bytes, error)) {
      err += request.output + ": error: cannot write: " + error + "\n";
      return kUnreadable;
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
  std::optional<LoadedFile> file = loadFile(path, r.err, {.threads = threads});
  if (!file) {
    r.unreadable = true;
    return r;
  }
  check::Options options;
  options.roundTrip = request.roundTrip;
  options.threads = threads;
  options.sources = request.sources;
  options.sourceDirectory = request.sourceDirectory;
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
    char head[64];
    std::snprintf(head, sizeof head, "%-26.*s %-8.*s ", static_cast<int>(r.id.size()), r.id.data(),
                  static_cast<int>(severityName(r.severity).size()), severityName(r.severity).data());
    out += head;
    out += r.summary;
    out += "; ptxas: ";
    out += r.ptxas;
    out += '\n';
  }
  return out;
}

int runCheck(const CheckRequest& request, std::string& out, std::string& err) {
  // Standard input can be read once: a second `-` would check nothing and
  // pass, and with -j which one gets the bytes would depend on timing.
  if (std::count(request.files.begin(), request.files.end(), "-") > 1) {
    err += "ptxdump check: error: '-' is named more than once; standard input can be read only once\n";
    return kUnreadable;
  }
  // Files are independent: `jobs` workers take the next unchecked file; output
  // is printed afterwards in argument order, so it does not depend on timing.
  std::vector<CheckResult> results(request.files.size());
  std::atomic<size_t> next{0};
  unsigned jobs = std::max(1u, std::min<unsigned>(request.jobs, static_cast<unsigned>(request.files.size())));
  unsigned readThreads = std::max(1u, ptxdwarf::usableThreads() / jobs);
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
  std::string error;
  if (writeFileReplacing(path, data, error)) return true;
  err += path + ": error: cannot write: " + error + "\n";
  return false;
}

}  // namespace

int runReformat(const ReformatRequest& request, std::string& out, std::string& err) {
  if (!request.remapPaths.empty()) return runRemap(request, out, err);
  std::optional<write::Style> style = write::parseStyle(request.style);
  if (!style) {
    err += "error: unknown style '" + request.style + "' (packed, one-per-line, verbose or dense)\n";
    return kUnreadable;
  }
  // Every byte outside the debug sections goes out as it came in, read back
  // from the mapped file as it is written: the reader releases the text's
  // pages as it passes them. At 20 MB the peak is 1.7 times the input so;
  // the text held whole and the output built in memory made it 3.6 times.
  // What function bodies hold and the name index are not looked at.
  std::optional<LoadedFile> file = loadFile(request.file, err, {.nameIndex = false, .bodies = false});
  if (!file) return kUnreadable;
  if (file->dwarf.diagnostics.hasErrors()) {
    appendDiagnostics(file->dwarf.diagnostics, request.file, err);
    return kUnreadable;
  }
  const ptx::Module& m = file->read.module;
  Diagnostics diags;
  std::vector<SectionImage> images;
  // The library runs on the caller's thread unless asked; ptxdump asks for
  // every CPU it may use, as it reads the file with.
  const unsigned threads = ptxdwarf::usableThreads();
  if (request.reencode) {
    images = write::encodeCanonical(file->dwarf, diags, threads);
  } else {
    images.reserve(m.sections.size());
    for (const SectionImage& s : m.sections)
      if (s.name.starts_with(".debug")) images.push_back(s);
  }
  // Verbose comments need the model of exactly these bytes (other styles use no model).
  const bool annotate = request.reencode && *style == write::Style::verbose;
  read::Dwarf annotated = annotate ? read::decode(images) : read::Dwarf{};
  write::WriteOptions options;
  options.style = *style;
  options.dwarf = request.reencode ? &annotated : &file->dwarf;
  options.threads = threads;
  // The text goes out as it is made, never held whole (it is larger than
  // the input): to a temporary file renamed when all is written, or to the
  // stream. reformat() finds every error before the first piece, so a
  // refused input creates no file and writes nothing.
  const bool toFile = !request.output.empty() && request.output != "-";
  PiecewiseFile outputFile(request.output);
  // A run of the text handed over whole (a view of it, read back from the
  // file) is not read again once written: its pages go again.
  const std::string_view inputText = file->text.view();
  auto writePiece = [&](std::string_view piece) {
    if (toFile) outputFile.write(piece);
    else writeTo(request.stream, piece);
    if (piece.data() >= inputText.data() && piece.data() + piece.size() <= inputText.data() + inputText.size()) {
      const auto at = static_cast<uint64_t>(piece.data() - inputText.data());
      file->text.release(at, at + piece.size());
    }
  };
  const bool streamed = toFile || request.stream;
  std::optional<std::string> text;
  bool written = false;
  if (!diags.hasErrors()) {
    if (streamed) written = write::reformat(file->text.view(), m, images, options, diags, writePiece);
    else if ((text = write::reformat(file->text.view(), m, images, options, diags))) written = true;
  }
  if (!written && request.reencode) {
    // Re-encoded sections have no PTX positions (the writer's refusals in
    // them say 0:0): what the input's own sections hold too is reported
    // where the input has it.
    std::vector<SectionImage> input;
    for (const SectionImage& s : m.sections)
      if (s.name.starts_with(".debug")) input.push_back(s);
    write::WriteOptions located = options;
    located.version = m.version;
    Diagnostics atInput;
    if (!write::validate(input, located, atInput) && atInput.hasErrors()) diags = std::move(atInput);
  }
  appendDiagnostics(diags, request.file, err);
  if (!written) return kProblems;
  if (file->text.shrank()) {  // the text was read again while writing (a temporary file goes; a stream got it cut)
    err += request.file + ": error: " + kShrankMessage + "\n";
    return kUnreadable;
  }
  if (!streamed) return writeOutput(request.output, *text, out, err) ? kOk : kUnreadable;
  if (!toFile) return kOk;  // a failed write to the stream is the caller's exit 2
  return outputFile.commit(err) ? kOk : kUnreadable;
}

}  // namespace ptxdump
