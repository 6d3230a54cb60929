// Reading the debug sections beside the code, on a second thread the caller
// gives (ReadOptions::threads). nvcc and LLVM write every `.section` block
// after the functions, and in an nvcc -G file the blocks are about 40% of
// the text: the second thread finds them (a `.section` at a line's start)
// and reads the large ones while the reader is still in the functions. The
// reader takes each block when it reaches its `.section` -- read by the same
// code from the same place, it is the image the reader would have made. A
// block the second thread did not read (small, a repeated name, after one
// that failed to read) the reader reads itself, and what it read where the
// reader finds no `.section` (one inside a comment) goes unused.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string_view>

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/section.h"

namespace ptxdwarf::ptx {

// A block read ahead: a section's image (name and position set) as its
// first block makes it, and where the block ends.
struct BlockReadAhead {
  uint64_t textBegin = 0;  // of its `.section` directive
  uint64_t end = 0;        // one past its `}`
  SourceLoc endLoc;        // the position of `end`
  SectionImage image;
  Diagnostics diagnostics;  // the warnings reading it gave
};

class SectionsAhead {
 public:
  // Smaller blocks are left to the reader: reading them costs less than
  // handing them over.
  static constexpr uint64_t kMinBlockBytes = uint64_t{64} << 10;

  // `options.consumed` is called from the second thread for the text of
  // each block it reads.
  SectionsAhead(std::string_view text, const ReadOptions& options, uint64_t minBlockBytes = kMinBlockBytes)
      : text_(text), options_(options), minBlockBytes_(minBlockBytes) {}

  // The second thread's part: reads the blocks ahead until the text ends,
  // one fails to read, or stop() is called; returns at once when stop()
  // came first.
  void run();
  // The reader's part: the block read ahead whose `.section` stands at
  // `textBegin`, or nullopt. Waits while the second thread, once started,
  // has not passed `textBegin`; when it has not started, it never will.
  // Calls come in increasing `textBegin`.
  std::optional<BlockReadAhead> take(uint64_t textBegin);
  // The reader is done: run() stops before its next block.
  void stop();
  // The blocks read ahead are of at least this much text, to the first '}'
  // after their `{` (blockTextBound).
  uint64_t minBlockBytes() const { return minBlockBytes_; }

 private:
  void publish(BlockReadAhead&& block);
  // Every block that begins before `offset` and was read ahead is in ready_.
  void passTo(uint64_t offset);
  bool stopped();

  std::string_view text_;
  const ReadOptions& options_;
  const uint64_t minBlockBytes_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<BlockReadAhead> ready_;  // in text order
  uint64_t passed_ = 0;               // every block read ahead that begins before this is in ready_
  bool started_ = false;              // run() has begun
  bool finished_ = false;             // run() is over, or stop() came first
};

// How readWithSectionsAhead runs the two parts: beside each other, or (for
// tests, which then see every block read ahead taken, whatever the timing)
// the second thread's part to its end first, on the caller's thread.
enum class AheadSchedule { beside, first };

// ptx::read, with the blocks of at least `minBlockBytes` read ahead when
// options.threads > 1.
ReadResult readWithSectionsAhead(std::string_view text, std::string_view filename, const ReadOptions& options,
                                 uint64_t minBlockBytes, AheadSchedule schedule = AheadSchedule::beside);

}  // namespace ptxdwarf::ptx
