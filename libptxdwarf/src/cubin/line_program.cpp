#include "ptxdwarf/cubin/line_program.h"

#include <algorithm>
#include <cstring>

#include "../work.h"
#include "ptxdwarf/format.h"

namespace ptxdwarf::cubin {

namespace {

// A bounds-checked cursor over one line table's bytes: a read past `end_`
// sets `failed` and yields 0, so a damaged table stops where it is damaged.
class Cursor {
 public:
  Cursor(std::span<const uint8_t> bytes, uint64_t at, uint64_t end) : bytes_(bytes), at_(at), end_(end) {}
  uint64_t at() const { return at_; }
  bool done() const { return at_ >= end_; }
  bool failed = false;

  uint64_t fixed(unsigned size) {
    if (end_ - at_ < size || at_ > end_) return fail();
    uint64_t v = 0;
    for (unsigned i = 0; i < size; ++i) v |= uint64_t{bytes_[at_ + i]} << (8 * i);
    at_ += size;
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (at_ >= end_) return fail();
      const uint8_t b = bytes_[at_++];
      if (shift < 64) v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
  }
  int64_t sleb() {
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b = 0;
    do {
      if (at_ >= end_) return static_cast<int64_t>(fail());
      b = bytes_[at_++];
      if (shift < 64) v |= uint64_t{b & 0x7fu} << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= ~uint64_t{0} << shift;
    return static_cast<int64_t>(v);
  }
  // A NUL-terminated string; nullopt (and failed) when no NUL ends it before `end_`.
  std::optional<std::string> cstring() {
    const void* nul = at_ < end_ ? std::memchr(bytes_.data() + at_, 0, end_ - at_) : nullptr;
    if (!nul) {
      fail();
      return std::nullopt;
    }
    const size_t n = static_cast<const uint8_t*>(nul) - (bytes_.data() + at_);
    std::string s(reinterpret_cast<const char*>(bytes_.data() + at_), n);
    at_ += n + 1;
    return s;
  }
  void skip(uint64_t n) {
    if (end_ - at_ < n) fail();
    else at_ += n;
  }
  void limit(uint64_t end) { end_ = end; }

 private:
  uint64_t fail() {
    failed = true;
    at_ = end_;
    return 0;
  }
  std::span<const uint8_t> bytes_;
  uint64_t at_, end_;
};

bool readHeader(std::span<const uint8_t> bytes, uint64_t offset, LineTable& t) {
  LineHeader& h = t.header;
  h.offset = offset;
  Cursor c(bytes, offset, bytes.size());
  h.unitLength = c.fixed(4);
  if (c.failed) {
    t.problems.push_back(hex(offset, 8) + ": the unit length runs past the section's end");
    return false;
  }
  if (h.unitLength >= 0xfffffff0u) {
    t.problems.push_back(hex(offset, 8) + ": 64-bit DWARF line tables are not decoded");
    return false;
  }
  h.end = offset + 4 + h.unitLength;
  if (h.end > bytes.size()) {
    t.problems.push_back(hex(offset, 8) + ": unit length " + hex(h.unitLength, 8) + " runs past the section's end (" +
                         hex(bytes.size(), 8) + ")");
    h.end = bytes.size();
  }
  c.limit(h.end);
  h.version = static_cast<uint16_t>(c.fixed(2));
  if (h.version < 2 || h.version > 4) {
    t.problems.push_back(hex(offset, 8) + ": line table version " + std::to_string(h.version) +
                         " is not decoded (ptxas writes 2)");
    return false;
  }
  h.headerLength = c.fixed(4);
  h.programBegin = c.at() + h.headerLength;
  if (h.programBegin > h.end) {
    t.problems.push_back(hex(offset, 8) + ": header length " + hex(h.headerLength, 8) + " runs past the table's end");
    return false;
  }
  c.limit(h.programBegin);
  h.minInstLength = static_cast<uint8_t>(c.fixed(1));
  if (h.version >= 4) h.maxOpsPerInst = static_cast<uint8_t>(c.fixed(1));
  h.defaultIsStmt = c.fixed(1) != 0;
  h.lineBase = static_cast<int8_t>(c.fixed(1));
  h.lineRange = static_cast<uint8_t>(c.fixed(1));
  h.opcodeBase = static_cast<uint8_t>(c.fixed(1));
  for (unsigned i = 1; i < h.opcodeBase && !c.failed; ++i) h.standardOpcodeLengths.push_back(static_cast<uint8_t>(c.fixed(1)));
  while (!c.failed) {
    std::optional<std::string> dir = c.cstring();
    if (!dir || dir->empty()) break;
    h.includeDirectories.push_back(std::move(*dir));
  }
  while (!c.failed) {
    std::optional<std::string> name = c.cstring();
    if (!name || name->empty()) break;
    LineFile f;
    f.name = std::move(*name);
    f.directory = c.uleb();
    f.modTime = c.uleb();
    f.length = c.uleb();
    h.files.push_back(std::move(f));
  }
  if (c.failed) {
    t.problems.push_back(hex(offset, 8) + ": the header's directory or file tables run past the header's end");
    return false;
  }
  // NVIDIA's extension: the rest of the header holds the base of the
  // inlined functions' names in .debug_str.
  if (h.programBegin - c.at() >= 4) h.inlineNamesBase = static_cast<uint32_t>(c.fixed(4));
  if (h.lineRange == 0) {
    t.problems.push_back(hex(offset, 8) + ": line_range 0: the special opcodes cannot be decoded");
    return false;
  }
  return true;
}

// The rows of one sequence as the two readers of NVIDIA's `context` number
// them, and the resolution of each new row's context into the row it names.
class SequenceNumbering {
 public:
  // Numbers `t.rows[at]` (just appended) and resolves its context.
  void add(LineTable& t, size_t at) {
    LineRow& r = t.rows[at];
    const bool repeat = !ptxasRows_.empty() && t.rows[at - 1].address == r.address && t.rows[at - 1].line == r.line;
    // A context names a row before this one: resolve it before numbering this row.
    if (r.context != 0 && r.context <= ptxasRows_.size()) r.callSite = ptxasRows_[r.context - 1];
    if (!repeat) ptxasRows_.push_back(at);
    r.ordinal = static_cast<uint32_t>(ptxasRows_.size());
    // cuda-gdb numbers the row first (when its file is one of the table's), then resolves.
    if (r.file >= 1 && r.file <= t.header.files.size()) cudaGdbRows_.push_back(at);
    if (r.context != 0 && r.context <= cudaGdbRows_.size()) r.cudaGdbCallSite = cudaGdbRows_[r.context - 1];
    if (r.context != 0) {
      const bool resolved = r.callSite != LineRow::kNoRow;
      r.inlineStackBroken = !resolved || t.rows[r.callSite].inlineStackBroken;
      const uint32_t below = resolved ? t.rows[r.callSite].inlineDepth : 0;
      r.inlineDepth = resolved ? (below == UINT32_MAX ? below : below + 1) : 0;
    }
    if (r.endSequence) {
      ptxasRows_.clear();
      cudaGdbRows_.clear();
    }
  }

 private:
  std::vector<size_t> ptxasRows_;   // [n - 1]: the first row ptxas numbers n
  std::vector<size_t> cudaGdbRows_;  // [n - 1]: the row cuda-gdb numbers n
};

void runProgram(std::span<const uint8_t> bytes, LineTable& t) {
  const LineHeader& h = t.header;
  Cursor c(bytes, h.programBegin, h.end);
  LineRow initial;  // the state machine's registers at each sequence's start
  initial.isStmt = h.defaultIsStmt;
  LineRow row = initial;
  SequenceNumbering numbering;
  auto emit = [&] {
    work::step(work::cubinLineRows);
    t.rows.push_back(row);
    numbering.add(t, t.rows.size() - 1);
  };
  while (!c.done()) {
    const uint64_t opAt = c.at();
    const uint8_t op = static_cast<uint8_t>(c.fixed(1));
    if (op >= h.opcodeBase) {
      const unsigned adjusted = op - h.opcodeBase;
      row.address += uint64_t{adjusted / h.lineRange} * h.minInstLength;
      row.line = static_cast<uint32_t>(static_cast<int64_t>(row.line) + h.lineBase + adjusted % h.lineRange);
      emit();
      continue;
    }
    switch (op) {
      case 0: {  // extended
        const uint64_t length = c.uleb();
        const uint64_t begin = c.at();
        if (length == 0 || c.failed) break;
        const uint8_t sub = static_cast<uint8_t>(c.fixed(1));
        switch (sub) {
          case 1:  // DW_LNE_end_sequence
            // The end of the code, not an instruction: outside any inlined
            // call (cuda-gdb resets the context before it records the row).
            row.endSequence = true;
            row.context = 0;
            row.functionName.reset();
            emit();
            row = initial;
            break;
          case 2:  // DW_LNE_set_address
            row.address = c.fixed(static_cast<unsigned>(std::min<uint64_t>(length - 1, 8)));
            break;
          case DW_LNE_NVIDIA_inlined_call:
            row.context = static_cast<uint32_t>(c.uleb());
            row.functionName = c.uleb();
            break;
          case DW_LNE_NVIDIA_set_function_name:
            row.functionName = c.uleb();
            break;
          default:
            break;  // define_file, discriminator, vendor: skipped by their length
        }
        if (!c.failed && c.at() - begin > length) {
          t.problems.push_back(hex(opAt, 8) + ": extended opcode " + std::to_string(sub) + "'s operands run past its length");
          return;
        }
        c.skip(length - (c.at() - begin));
        break;
      }
      case 1:  // DW_LNS_copy
        emit();
        break;
      case 2:
        row.address += c.uleb() * h.minInstLength;
        break;
      case 3:
        // Lines are unsigned 32-bit, as llvm-dwarfdump keeps them: an advance
        // wraps modulo 2^32 rather than overflowing a signed sum.
        row.line += static_cast<uint32_t>(static_cast<uint64_t>(c.sleb()));
        break;
      case 4:
        row.file = static_cast<uint32_t>(c.uleb());
        break;
      case 5:
        row.column = static_cast<uint32_t>(c.uleb());
        break;
      case 6:
        row.isStmt = !row.isStmt;
        break;
      case 7:  // basic_block
        break;
      case 8:  // const_add_pc
        row.address += uint64_t{(255u - h.opcodeBase) / h.lineRange} * h.minInstLength;
        break;
      case 9:
        row.address += c.fixed(2);
        break;
      default:  // prologue_end, epilogue_begin, isa, and opcodes the header declares
        for (unsigned i = 0; i < h.standardOpcodeLengths[op - 1] && !c.failed; ++i) c.uleb();
        break;
    }
    if (c.failed) {
      t.problems.push_back(hex(opAt, 8) + ": opcode " + std::to_string(op) + " runs past the table's end");
      return;
    }
  }
}

}  // namespace

std::string LineHeader::filePath(uint64_t file) const {
  if (file == 0 || file > files.size()) return {};
  const LineFile& f = files[file - 1];
  if (f.name.starts_with('/') || f.directory == 0 || f.directory > includeDirectories.size()) return f.name;
  std::string path = includeDirectories[f.directory - 1];
  if (!path.empty() && path.back() != '/') path += '/';
  return path + f.name;
}

std::vector<LineTable> decodeLinePrograms(std::span<const uint8_t> section) {
  std::vector<LineTable> tables;
  uint64_t offset = 0;
  while (offset < section.size()) {
    LineTable& t = tables.emplace_back();
    if (!readHeader(section, offset, t)) break;
    runProgram(section, t);
    if (t.header.end <= offset) break;
    offset = t.header.end;
  }
  return tables;
}

std::vector<InlineFrame> inlineStack(const LineTable& table, size_t row, std::span<const uint8_t> debugStr,
                                     bool* broken, size_t most) {
  std::vector<InlineFrame> stack;
  if (broken) *broken = row < table.rows.size() && table.rows[row].inlineStackBroken;
  const uint64_t base = table.header.inlineNamesBase.value_or(0);
  // callSite always names an earlier row, so the walk ends.
  for (size_t at = row; at < table.rows.size() && stack.size() < most;) {
    const LineRow& r = table.rows[at];
    work::step(work::cubinLineRows);
    if (r.context == 0 || r.callSite == LineRow::kNoRow) break;
    InlineFrame f;
    if (r.functionName) {
      const uint64_t name = base + *r.functionName;
      if (name >= base && name < debugStr.size()) {
        const void* nul = std::memchr(debugStr.data() + name, 0, debugStr.size() - name);
        if (nul)
          f.function = std::string_view(reinterpret_cast<const char*>(debugStr.data() + name),
                                        static_cast<const uint8_t*>(nul) - (debugStr.data() + name));
      }
    }
    const LineRow& site = table.rows[r.callSite];
    f.callFile = site.file;
    f.callLine = site.line;
    f.callColumn = site.column;
    stack.push_back(f);
    at = r.callSite;
  }
  return stack;
}

ShownInlineStack shownInlineStack(const LineTable& table, size_t row, std::span<const uint8_t> debugStr) {
  ShownInlineStack shown;
  shown.frames = inlineStack(table, row, debugStr, &shown.broken, kInlineFramesShown);
  const uint32_t depth = row < table.rows.size() ? table.rows[row].inlineDepth : 0;
  shown.omitted = inlineFramesOmitted(depth);
  return shown;
}

}  // namespace ptxdwarf::cubin
