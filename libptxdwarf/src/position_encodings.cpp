// The encodings of SourceMap and ptx::InstructionPositions: see position_encodings.h.
#include "position_encodings.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include "ptxdwarf/leb128.h"
#include "own_uleb.h"
#include "reserve.h"

namespace ptxdwarf {

namespace {

void putUleb(std::vector<uint8_t>& out, uint32_t v) {
  encodeUleb(v, [&out](uint8_t b) { out.push_back(b); });
}

// WW of a short entry for an offset step, or -1 where none fits.
int shortStep(uint32_t offsetStep) {
  switch (offsetStep) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    default: return -1;
  }
}

}  // namespace

// ---- SourceMap

void SourceMapEncoding::reserve(SourceMap& m, size_t operands) {
  reserveUpTo(m.deltas_, operands);
  reserveUpTo(m.checkpoints_, operands / 4 + 1);  // a long entry takes at most 16 bytes of deltas
}

void SourceMapEncoding::addEntry(SourceMap& m, uint32_t offset, uint32_t line, uint32_t col) {
  if (m.count_ == 0 || m.deltas_.size() - m.checkpointPos_ >= kCheckpointBytes) {
    m.checkpointPos_ = static_cast<uint32_t>(m.deltas_.size());
    m.checkpoints_.push_back({{offset, line, col}, m.checkpointPos_});
    m.runByte_ = kNoRun;  // a run does not cross a checkpoint
    m.repeatAt_ = kNoRepeat;
  } else {
    const uint32_t lineStep = line - m.last_.line;  // lines only grow: operands are read in file order
    const uint32_t colField = lineStep == 0 ? col - m.last_.col : col;
    const int step = shortStep(offset - m.last_.offset);
    if (step >= 0 && lineStep <= 1 && colField < 16 && (lineStep == 1 || col >= m.last_.col)) {
      putShort(m, static_cast<uint8_t>(step << 5 | lineStep << 4 | colField));
    } else {
      m.deltas_.push_back(kLongEntry);
      putUleb(m.deltas_, offset - m.last_.offset);
      putUleb(m.deltas_, lineStep);
      putUleb(m.deltas_, col);
      m.runByte_ = kNoRun;
      m.repeatAt_ = kNoRepeat;
    }
  }
  m.last_ = {offset, line, col};
  ++m.count_;
}

SourceLoc SourceMap::locate(uint64_t offset, SourceLoc fallback) const {
  using E = SourceMapEncoding;
  auto it = std::upper_bound(checkpoints_.begin(), checkpoints_.end(), offset,
                             [](uint64_t o, const Checkpoint& c) { return o < c.entry.offset; });
  if (it == checkpoints_.begin()) return fallback;
  --it;
  Entry e = it->entry;  // at or before `offset`
  const uint8_t* p = deltas_.data() + it->pos;
  const uint8_t* end = std::next(it) == checkpoints_.end() ? deltas_.data() + deltas_.size()
                                                           : deltas_.data() + std::next(it)->pos;
  uint8_t run = E::kNoRun;  // the last short delta
  while (p < end) {
    const uint8_t b = *p++;
    if (b == E::kLongEntry) {
      Entry next;
      next.offset = e.offset + readOwnUleb32(p);
      next.line = e.line + readOwnUleb32(p);
      next.col = readOwnUleb32(p);
      if (next.offset > offset) break;
      e = next;
      continue;
    }
    // A short delta once, or a repeat byte's count of the last one.
    const uint8_t delta = b < E::kLongEntry ? b : run;
    const uint32_t times = b < E::kLongEntry ? 1 : b & 0x7fu;
    run = delta;
    const uint32_t step = 1u << (delta >> 5);
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(times, (offset - e.offset) / step));
    const bool newLine = delta & 0x10;
    if (n > 0) {
      e.offset += n * step;
      e.line += newLine ? n : 0;
      e.col = newLine ? (delta & 0xfu) : e.col + n * (delta & 0xfu);
    }
    if (n < times) break;  // the next entry lies past `offset`
  }
  return {e.line, e.col};
}

}  // namespace ptxdwarf

namespace ptxdwarf::ptx {

// ---- InstructionPositions

Instruction InstructionPositions::decodeNext(const uint8_t*& p, Instruction before) {
  const uint8_t b = *p++;
  if (b != InstructionPositionsEncoding::kLong) return {before.line + (b >> 4), b & 0xfu};
  Instruction i;  // as pushLong wrote it
  i.line = readOwnUleb32(p);
  i.col = readOwnUleb32(p);
  return i;
}

void InstructionPositionsEncoding::startGroup(InstructionPositions& p) {
  p.checkpoints_.push_back({static_cast<uint32_t>(p.bytes_.size()), p.last_});
}

void InstructionPositionsEncoding::pushLong(InstructionPositions& p, Instruction i) {
  // The line as it is, not a step: a caller may append out of order.
  p.bytes_.push_back(kLong);
  encodeUleb(i.line, [&p](uint8_t b) { p.bytes_.push_back(b); });
  encodeUleb(i.col, [&p](uint8_t b) { p.bytes_.push_back(b); });
}

void InstructionPositionsEncoding::reserve(InstructionPositions& p, size_t instructions) {
  reserveUpTo(p.bytes_, instructions);
  reserveUpTo(p.checkpoints_, instructions / kGroup + 1);
}

InstructionPositions::iterator InstructionPositions::at(size_t i) const {
  using E = InstructionPositionsEncoding;
  if (i >= count_) return end();
  const Checkpoint& c = checkpoints_[i / E::kGroup];
  const uint8_t* p = bytes_.data() + c.pos;
  Instruction current = c.before;
  for (size_t k = i / E::kGroup * E::kGroup; k <= i; ++k) current = decodeNext(p, current);
  return iterator(p, current, i, count_);
}

bool operator==(const InstructionPositions& a, const InstructionPositions& b) {
  // One encoding for one sequence of positions, whatever the groups.
  return a.count_ == b.count_ && a.bytes_ == b.bytes_;
}

}  // namespace ptxdwarf::ptx
