// Writing what a command produced to stdout or stderr.
#pragma once

#include <cerrno>
#include <cstdio>
#include <string_view>

namespace ptxdump {

// errno of the last write through writeTo() that failed (0: none did), for
// the message that a failed write to stdout ends with.
inline int lastWriteErrno = 0;

// What a command produced, to stdout or stderr. A failure leaves the stream's
// error flag set and its errno in lastWriteErrno.
inline void writeTo(std::FILE* f, std::string_view s) {
  if (!s.empty() && std::fwrite(s.data(), 1, s.size(), f) != s.size()) lastWriteErrno = errno;
}

}  // namespace ptxdump
