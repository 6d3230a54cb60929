// ptxdump's files (io.h): the input through the library's load(), outputs
// written whole or not at all.
#include "io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ptxdump {

std::optional<LoadedFile> loadFile(const std::string& path, std::string& err, const LoadOptions& load) {
  LoadedFile file = ptxdwarf::load(path, {.threads = load.threads,
                                          .nameIndex = load.nameIndex,
                                          .bodies = load.bodies,
                                          .releaseText = !load.keepText,
                                          .program = "ptxdump"});
  appendDiagnostics(file.read.diagnostics, path, err);
  if (!file.ok()) return std::nullopt;
  return file;
}

bool decodeFailed(const LoadedFile& file, std::string& err) {
  if (!file.dwarf.diagnostics.hasErrors()) return false;
  appendDiagnostics(file.dwarf.diagnostics, file.path, err);
  return true;
}

bool inputShrank(const LoadedFile& file, std::string& err) {
  if (!file.text.shrank()) return false;
  err += file.path + ": error: " + ptxdwarf::kShrankMessage + "\n";
  return true;
}

bool writeOutput(const std::string& path, std::string_view data, std::string& out, std::string& err) {
  if (path.empty() || path == "-") {
    out.append(data);
    return true;
  }
  ReplacingFile file(path);
  file.write(data);
  return file.commit(err);
}

void appendDiagnostics(const ptxdwarf::Diagnostics& diags, const std::string& path, std::string& err) {
  for (const ptxdwarf::Diagnostic& d : diags.items) {
    err += d.format(path);
    if (!d.section.empty() && d.offset >= 0 && d.loc.line != 0) {  // else format() named the offset
      char buf[64];
      std::snprintf(buf, sizeof buf, " (%s+0x%llx)", d.section.c_str(), static_cast<unsigned long long>(d.offset));
      err += buf;
    }
    err += '\n';
  }
}

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

void ReplacingFile::open() {
  opened_ = true;
  target_ = path_;
  exists_ = stat(path_.c_str(), &st_) == 0;
  if (exists_ && !S_ISREG(st_.st_mode)) {
    // /dev/null, /dev/stdout, a FIFO: nothing to replace, and no temporary
    // file belongs beside them.
    direct_ = true;
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) openError_ = std::strerror(errno);
    return;
  }
  // A symbolic link stays one: its target is replaced.
  std::error_code ec;
  if (std::filesystem::is_symlink(path_, ec)) {
    std::filesystem::path resolved = std::filesystem::weakly_canonical(path_, ec);
    if (!ec) target_ = resolved.string();
  }
  for (unsigned attempt = 0; fd_ < 0 && attempt < 100; ++attempt) {
    temp_ = target_ + ".ptxdump-" + std::to_string(getpid()) + "-" + std::to_string(attempt) + ".tmp";
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // the umask applies
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) openError_ = std::strerror(errno);
}

void ReplacingFile::write(std::string_view piece) {
  if (!opened_) open();
  if (fd_ >= 0 && ok_ && !writeAll(fd_, piece)) {
    ok_ = false;
    errno_ = errno;
  }
}

bool ReplacingFile::commit(std::string& err) {
  if (!opened_) open();  // an empty text
  std::string error = openError_;
  if (error.empty() && replace(error)) return true;
  err += path_ + ": error: cannot write: " + error + "\n";
  return false;
}

bool ReplacingFile::replace(std::string& error) {
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

ReplacingFile::~ReplacingFile() {
  if (fd_ < 0) return;
  close(fd_);
  if (!direct_) unlink(temp_.c_str());
}

}  // namespace ptxdump
