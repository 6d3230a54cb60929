#include "sections_ahead.h"

#include <cstring>
#include <utility>

#include "../work.h"
#include "lexer.h"
#include "section_reader.h"

namespace ptxdwarf::ptx {
namespace {

constexpr std::string_view kSectionDirective = ".section";

bool onlyBlanks(const char* p, const char* end) {
  for (; p < end; ++p)
    if (!isSpaceOrTab(*p)) return false;
  return true;
}

// Where the search for blocks stands in the text: an offset, the line it is
// on and where that line starts.
struct LinePosition {
  uint64_t offset = 0;
  uint32_t line = 1;
  uint64_t lineStart = 0;

  void moveTo(std::string_view text, uint64_t to) {
    const char* from = text.data() + offset;
    const size_t length = static_cast<size_t>(to - offset);
    line += static_cast<uint32_t>(countNewlines(from, from + length));
    if (const void* newline = memrchr(from, '\n', length))
      lineStart = static_cast<uint64_t>(static_cast<const char*>(newline) - text.data()) + 1;
    offset = to;
  }
};

// The block whose `.section` directive the cursor stands at, read as the
// reader reads a section's first block; nullopt when it is not one, or
// its text is under `minBlockBytes`. A syntax error throws ParseError.
std::optional<BlockReadAhead> readBlock(Cursor& cur, const ReadOptions& options, uint64_t minBlockBytes) {
  BlockReadAhead block;
  block.textBegin = cur.offset();
  const SourceLoc at = cur.loc();
  if (cur.directive() != kSectionDirective) return std::nullopt;
  const SectionHeader header = readSectionHeader(cur);
  const uint64_t blockBytes = blockTextBound(cur);
  if (blockBytes < minBlockBytes) return std::nullopt;
  startSectionImage(block.image, header.name, at, blockBytes);
  ConsumedText consumed(options, cur.offset());
  readSectionBody(cur, block.image, header.brace, block.diagnostics, consumed);
  consumed.finish(cur.offset());
  block.end = cur.offset();
  block.endLoc = cur.loc();
  return block;
}

}  // namespace

void SectionsAhead::run() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_) return;
    started_ = true;
  }
  // However run() ends, the reader waits for it no longer.
  struct Finish {
    SectionsAhead& ahead;
    ~Finish() {
      std::lock_guard<std::mutex> lock(ahead.mutex_);
      ahead.finished_ = true;
      ahead.changed_.notify_all();
    }
  } finish{*this};
  LinePosition position;
  uint64_t searchFrom = 0;
  while (!stopped()) {
    const void* hit = memmem(text_.data() + searchFrom, text_.size() - searchFrom, kSectionDirective.data(),
                             kSectionDirective.size());
    const uint64_t at = hit ? static_cast<uint64_t>(static_cast<const char*>(hit) - text_.data()) : text_.size();
    work::step(work::textReadAhead, at - searchFrom);
    if (!hit) return;
    position.moveTo(text_, at);
    searchFrom = at + kSectionDirective.size();
    // A `.section` after other text on its line is most likely in a
    // comment; the reader reads the rare real one itself.
    if (onlyBlanks(text_.data() + position.lineStart, static_cast<const char*>(hit))) {
      Cursor cur(text_, position.lineStart, position.line);
      cur.advance(at - position.lineStart);
      std::optional<BlockReadAhead> block;
      try {
        block = readBlock(cur, options_, minBlockBytes_);
      } catch (const ParseError&) {
        return;  // what follows is not worth reading ahead: the reader stops here or reads it itself
      }
      if (block) {
        work::step(work::textReadAhead, block->end - at);
        searchFrom = block->end;
        position = {block->end, block->endLoc.line, block->end - (block->endLoc.col - 1)};
        publish(std::move(*block));
        continue;
      }
    }
    passTo(searchFrom);
  }
}

std::optional<BlockReadAhead> SectionsAhead::take(uint64_t textBegin) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!started_) {
    finished_ = true;  // the reader got here first: it reads every block itself
    return std::nullopt;
  }
  changed_.wait(lock, [&] { return finished_ || passed_ > textBegin; });
  while (!ready_.empty() && ready_.front().textBegin < textBegin) ready_.pop_front();  // in comments
  if (ready_.empty() || ready_.front().textBegin != textBegin) return std::nullopt;
  std::optional<BlockReadAhead> block(std::move(ready_.front()));
  ready_.pop_front();
  return block;
}

void SectionsAhead::stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  finished_ = true;
  changed_.notify_all();
}

void SectionsAhead::publish(BlockReadAhead&& block) {
  std::lock_guard<std::mutex> lock(mutex_);
  passed_ = block.end;
  ready_.push_back(std::move(block));
  changed_.notify_all();
}

void SectionsAhead::passTo(uint64_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  passed_ = offset;
  changed_.notify_all();
}

bool SectionsAhead::stopped() {
  std::lock_guard<std::mutex> lock(mutex_);
  return finished_;
}

}  // namespace ptxdwarf::ptx
