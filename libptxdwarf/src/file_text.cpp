// FileText: a PTX text mapped, read into memory, or borrowed (ptxdwarf/load.h).
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <span>
#include <utility>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptxdwarf/elf/elf.h"
#include "ptxdwarf/load.h"

namespace ptxdwarf {

// One mapping the SIGBUS handler below knows (declared in load.h).
struct GuardedMap {
  std::atomic<uintptr_t> begin{0}, end{0};  // begin == 1: slot being filled or emptied
  std::atomic<bool> shrank{false};
};

namespace {

std::string sizeLimitMessage(std::string_view program) {
  return std::string(program) + " reads PTX files of at most " + std::to_string(kMaxFileSize >> 20) + " MiB";
}

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
// whole size limit. A cubin is binary (NULs throughout): a stream that
// starts with the ELF magic is read to its end, as a file would be.
bool readStream(int fd, std::string& text, std::string& error, std::string_view program) {
  constexpr size_t kChunk = 1 << 16;
  text.clear();
  for (bool binary = false;;) {
    const size_t before = text.size();
    text.resize(before + kChunk);
    ssize_t n = readFully(fd, text.data() + before, kChunk);
    if (n < 0) {
      error = std::strerror(errno);
      return false;
    }
    text.resize(before + static_cast<size_t>(n));
    if (before == 0) binary = elf::hasElfMagic(std::string_view(text));
    if (const void* nul = binary ? nullptr : std::memchr(text.data() + before, '\0', static_cast<size_t>(n))) {
      text.resize(static_cast<size_t>(static_cast<const char*>(nul) - text.data()) + 1);
      return true;
    }
    if (text.size() > kMaxFileSize) {
      error = "input exceeds " + std::to_string(kMaxFileSize >> 20) + " MiB; " + sizeLimitMessage(program);
      return false;
    }
    if (static_cast<size_t>(n) < kChunk) return true;  // end of input
  }
}

// ---- mapped files that shrink ----------------------------------------------
// A mapped file that another process truncates raises SIGBUS on the next
// access to a page past its new end. Each mapping is registered here; the
// handler puts a page of zeros over the faulting page of a registered mapping
// and marks it, and load() turns the mark into an error. A fault anywhere
// else goes to the handler the process had before (a host that maps files of
// its own may resume them), or gets the default action: the process dies as
// it would have.

constexpr size_t kGuardSlots = 512;  // `check -j 256` maps at most 256 files at once
GuardedMap gGuarded[kGuardSlots];
size_t gPageSize = 4096;
struct sigaction gPrevious {};

void onSigbus(int number, siginfo_t* info, void* context) {
  const bool fault = info->si_code > 0;  // raised by the kernel at si_addr, not sent by kill() or raise()
  const auto at = reinterpret_cast<uintptr_t>(info->si_addr);
  const std::span<GuardedMap> mappings = fault ? std::span<GuardedMap>(gGuarded) : std::span<GuardedMap>();
  for (GuardedMap& m : mappings) {
    if (at < m.begin.load(std::memory_order_acquire) || at >= m.end.load(std::memory_order_acquire)) continue;
    void* page = reinterpret_cast<void*>(at & ~(gPageSize - 1));
    if (mmap(page, gPageSize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
      m.shrank.store(true, std::memory_order_release);
      return;  // the faulting read runs again and reads zeros
    }
  }
  if ((gPrevious.sa_flags & SA_SIGINFO) && gPrevious.sa_sigaction) return gPrevious.sa_sigaction(number, info, context);
  if (!(gPrevious.sa_flags & SA_SIGINFO) && gPrevious.sa_handler != SIG_DFL && gPrevious.sa_handler != SIG_IGN)
    return gPrevious.sa_handler(number);
  if (!fault && !(gPrevious.sa_flags & SA_SIGINFO) && gPrevious.sa_handler == SIG_IGN) return;  // as before
  signal(SIGBUS, SIG_DFL);
  if (!fault) raise(SIGBUS);  // a fault happens again when the handler returns; a sent signal does not
}

void installSigbusHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    gPageSize = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    struct sigaction sa {};
    sa.sa_sigaction = onSigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &gPrevious);
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

bool readWholeFile(const std::string& path, std::string& text, std::string& error, std::string_view program) {
  FileText file;
  if (!file.load(path, error, /*map=*/false, program)) return false;
  text.assign(file.view());
  return true;
}

FileText FileText::borrowing(std::string_view text) {
  FileText t;
  t.borrowed_ = text.data() ? text.data() : "";
  t.size_ = text.size();
  return t;
}

FileText::FileText(FileText&& other) noexcept { *this = std::move(other); }

FileText& FileText::operator=(FileText&& other) noexcept {
  if (this != &other) {
    unmap();
    map_ = std::exchange(other.map_, nullptr);
    borrowed_ = std::exchange(other.borrowed_, nullptr);
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
  borrowed_ = nullptr;
  size_ = 0;
}

bool FileText::shrank() const { return guard_ && guard_->shrank.load(std::memory_order_acquire); }

void FileText::release(uint64_t begin, uint64_t end) const {
  if (!map_) return;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t first = (begin + page - 1) / page * page;  // pages wholly inside
  const uint64_t last = std::min<uint64_t>(end, size_) / page * page;
  if (first < last) madvise(const_cast<char*>(map_) + first, last - first, MADV_DONTNEED);
}

bool FileText::load(const std::string& path, std::string& error, bool map, std::string_view program) {
  unmap();
  owned_.clear();
  if (path == "-") return readStream(STDIN_FILENO, owned_, error, program);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  auto fail = [&](std::string why) {
    close(fd);
    error = std::move(why);
    return false;
  };
  struct stat st {};
  if (fstat(fd, &st) != 0) return fail(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return fail("it is a directory, not a PTX file");
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kMaxFileSize)
    return fail("file is " + std::to_string(st.st_size) + " bytes; " + sizeLimitMessage(program));
  if (map && S_ISREG(st.st_mode) && st.st_size > 0) {
    // MAP_POPULATE maps every page in one call instead of faulting them in one by one; not for a cubin, of
    // which a reader copies the debug sections and looks at little else (cubin::ReadOptions::release).
    char magic[4] = {};
    const bool cubin = pread(fd, magic, sizeof magic, 0) == sizeof magic &&
                       elf::hasElfMagic(std::string_view(magic, sizeof magic));
    void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE | (cubin ? 0 : MAP_POPULATE), fd, 0);
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
  bool ok = readStream(fd, owned_, error, program);
  close(fd);
  return ok;
}

}  // namespace ptxdwarf
