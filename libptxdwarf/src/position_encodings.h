// How the positions the reader records are encoded: SourceMap (section.h),
// where each debug-section operand came from, and ptx::InstructionPositions
// (ptx/module.h), where each instruction is. Both hold one entry per
// operand or instruction of a large file, so both are delta-encoded with a
// checkpoint every few entries for lookup. The appending is inline here for
// the usual entry (a million calls for a 20 MB nvcc -G file); callers outside
// the library only read, through the classes' own members.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>

#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/section.h"

namespace ptxdwarf {

// SourceMap: (section offset, line, column) for every directive operand, in
// offset order. nvcc writes one byte per line, so this has an entry per DWARF
// byte. An entry is one byte when it is the usual next operand (1, 2, 4 or 8
// bytes on, on the same or the next line, at a small column or column step):
// 0b0WWLCCCC, offset step 1 << WW, line step L, and CCCC the column on a new
// line or the column step on the same line. Anything else: kLongEntry, then
// ULEB offset step, line step and column. A run of entries with the same
// one-byte delta -- line after line of `.b8 N` -- is that byte and a byte per
// 127 repeats (a 20 MB nvcc -G file's million entries take 676 KB, not about
// 1.3 MB). A checkpoint (a whole entry) starts every 64 bytes of deltas.
struct SourceMapEncoding {
  static constexpr uint32_t kCheckpointBytes = 64;
  static constexpr uint8_t kLongEntry = 0x80;
  static constexpr uint8_t kNoRun = 0xff;   // no short delta to repeat
  static constexpr uint8_t kRepeat = 0x81;  // 0x81..0xff: the last short delta, 1..127 more times
  static constexpr uint32_t kNoRepeat = UINT32_MAX;

  // Offsets must not decrease.
  static void add(SourceMap& m, uint32_t offset, uint32_t line, uint32_t col) {
    if (m.count_ != 0 && m.deltas_.size() - m.checkpointPos_ < kCheckpointBytes) {
      const uint32_t lineStep = line - m.last_.line;  // lines only grow: operands are read in file order
      const uint32_t colField = lineStep == 0 ? col - m.last_.col : col;
      const uint32_t step = offset - m.last_.offset;
      if (lineStep <= 1 && colField < 16 && (lineStep == 1 || col >= m.last_.col) && step != 0 &&
          (step & (step - 1)) == 0 && step <= 8) {  // 1, 2, 4 or 8 (std::has_single_bit may be a libgcc call)
        putShort(m, static_cast<uint8_t>(std::countr_zero(step) << 5 | lineStep << 4 | colField));
        m.last_ = {offset, line, col};
        ++m.count_;
        return;
      }
    }
    addEntry(m, offset, line, col);
  }
  // `count` entries (offset + i, line + i, col): an operand a line, a byte
  // apart, at one column -- a run of `.b8 N` lines. Stored as `count` calls
  // of add() would store them, a run's repeats counted up at once.
  static void addLines(SourceMap& m, uint32_t offset, uint32_t line, uint32_t col, uint32_t count) {
    const uint8_t delta = static_cast<uint8_t>(1u << 4 | (col & 0xf));  // a byte and a line on, at `col`
    for (uint32_t i = 0; i < count;) {
      if (i > 0 && col < 16 && m.runByte_ == delta && m.repeatAt_ != kNoRepeat && m.deltas_[m.repeatAt_] != 0xff &&
          m.deltas_.size() - m.checkpointPos_ < kCheckpointBytes) {
        const uint32_t more = std::min<uint32_t>(count - i, 0xffu - m.deltas_[m.repeatAt_]);
        m.deltas_[m.repeatAt_] = static_cast<uint8_t>(m.deltas_[m.repeatAt_] + more);
        i += more;
        m.count_ += more;
        m.last_ = {offset + i - 1, line + i - 1, col};
        continue;
      }
      add(m, offset + i, line + i, col);
      ++i;
    }
  }
  // Room for `operands` entries (the reader knows at most how many the
  // section's text can hold).
  static void reserve(SourceMap& m, size_t operands);

 private:
  // A one-byte delta: the last one's repeat count goes up where it can.
  static void putShort(SourceMap& m, uint8_t delta) {
    if (delta != m.runByte_) {
      m.deltas_.push_back(delta);
      m.runByte_ = delta;
      m.repeatAt_ = kNoRepeat;
    } else if (m.repeatAt_ != kNoRepeat && m.deltas_[m.repeatAt_] != 0xff) {
      ++m.deltas_[m.repeatAt_];
    } else {
      m.repeatAt_ = static_cast<uint32_t>(m.deltas_.size());
      m.deltas_.push_back(kRepeat);
    }
  }
  static void addEntry(SourceMap& m, uint32_t offset, uint32_t line, uint32_t col);  // any entry
};

}  // namespace ptxdwarf

namespace ptxdwarf::ptx {

// InstructionPositions: a byte each for the usual instruction (up to 7 lines
// after the one before, at a column up to 15: line step << 4 | column), else
// kLong and the line and column as ULEB128s, with a checkpoint every 64
// instructions for indexing. A 20 MB nvcc -G file has 254,000 instructions:
// 2 MB as Instruction values, about 0.3 MB so. Indexing decodes from the
// checkpoint before; iterating decodes a byte a step.
struct InstructionPositionsEncoding {
  static constexpr size_t kGroup = 64;
  static constexpr uint32_t kMaxShortLineStep = 7;
  static constexpr uint32_t kMaxShortCol = 15;
  static constexpr uint8_t kLong = 0x80;

  static void push_back(InstructionPositions& p, Instruction i) {
    if (p.count_ % kGroup == 0) startGroup(p);
    const uint32_t lineStep = i.line - p.last_.line;
    if (i.line >= p.last_.line && lineStep <= kMaxShortLineStep && i.col <= kMaxShortCol)
      p.bytes_.push_back(static_cast<uint8_t>(lineStep << 4 | i.col));
    else
      pushLong(p, i);
    p.last_ = i;
    ++p.count_;
  }
  // Room for `instructions` of them: the bytes of as many usual ones.
  static void reserve(InstructionPositions& p, size_t instructions);

 private:
  static void startGroup(InstructionPositions& p);
  static void pushLong(InstructionPositions& p, Instruction i);
};

}  // namespace ptxdwarf::ptx
