// The PTX reader: one pass over the text. Module-level directives and
// declarations are indexed; instruction bodies are skipped statement by
// statement; `.section` blocks are assembled into SectionImages.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "../position_encodings.h"
#include "../reserve.h"
#include "lexer.h"
#include "section_reader.h"
#include "sections_ahead.h"
#include "../parallel.h"
#include "ptxdwarf/leb128.h"
#include "ptxdwarf/ptx/module.h"
#include "../work.h"

namespace ptxdwarf::ptx {
namespace {

// The vectors that grow with the size of the text (instructions, labels,
// `.loc` records, declarations, section bytes and relocations) are reserved
// for the most `textBytes` could hold, at `minItemBytes` of text an item
// (see reserve.h).
template <class T>
void reserveForText(std::vector<T>& v, uint64_t textBytes, uint64_t minItemBytes) {
  reserveUpTo(v, textBytes / minItemBytes + 1);
}

StateSpace spaceFromDirective(std::string_view d) {
  if (d == ".global") return StateSpace::global;
  if (d == ".shared") return StateSpace::shared;
  if (d == ".const") return StateSpace::const_;
  if (d == ".local") return StateSpace::local;
  if (d == ".param") return StateSpace::param;
  if (d == ".reg") return StateSpace::reg;
  if (d == ".sreg") return StateSpace::sreg;
  if (d == ".tex") return StateSpace::tex;
  if (d == ".surf") return StateSpace::surf;
  return StateSpace::none;
}

Linkage linkageFromDirective(std::string_view d) {
  if (d == ".visible") return Linkage::visible;
  if (d == ".extern") return Linkage::extern_;
  if (d == ".weak") return Linkage::weak;
  if (d == ".common") return Linkage::common;
  return Linkage::none;
}

// A type a declaration may name: its text, and the name declarations keep
// (a literal: nothing to intern).
struct TypeDirective {
  std::string_view text;
  SymbolName name;
};
template <size_t N>
constexpr TypeDirective typeDirective(const char (&literal)[N]) {
  return {std::string_view(literal, N - 1), SymbolName(literal)};
}
// The ones declarations name most first (nvcc's registers and parameters:
// .b32, .b64, .f32, .b8, .pred, .u64 in that order).
constexpr TypeDirective kTypeDirectives[] = {
    typeDirective(".b32"),    typeDirective(".b64"),    typeDirective(".f32"),        typeDirective(".b8"),
    typeDirective(".pred"),   typeDirective(".u64"),    typeDirective(".b16"),        typeDirective(".u32"),
    typeDirective(".f64"),    typeDirective(".s32"),    typeDirective(".u8"),         typeDirective(".u16"),
    typeDirective(".s64"),    typeDirective(".s8"),     typeDirective(".s16"),        typeDirective(".f16"),
    typeDirective(".f16x2"),  typeDirective(".bf16"),   typeDirective(".bf16x2"),     typeDirective(".b128"),
    typeDirective(".texref"), typeDirective(".samplerref"), typeDirective(".surfref"), typeDirective(".e4m3"),
    typeDirective(".e5m2"),   typeDirective(".tf32")};

// The type `d` names, or nullptr. Size and last character are compared
// before the bytes: nearly every declaration names one (62,000 in a 20 MB
// nvcc -G file), and comparing each candidate's bytes took a memcmp call.
const TypeDirective* typeOf(std::string_view d) {
  if (d.empty()) return nullptr;
  for (const TypeDirective& t : kTypeDirectives)
    if (t.text.size() == d.size() && t.text.back() == d.back() && t.text == d) return &t;
  return nullptr;
}

class Reader {
 public:
  Reader(std::string_view text, std::string_view filename, const ReadOptions& options)
      : cur_(text), options_(options), consumed_(options) {
    module_.filename = std::string(filename);
    const uint64_t size = text.size();
    if (options.bodies) {
      InstructionPositionsEncoding::reserve(module_.instructions, size / 4 + 1);     // `ret;`
      reserveForText(module_.labels, size, 4);        // `$L:` and a newline
      reserveForText(module_.locs, size, 10);         // `.loc 1 1 1`
      reserveForText(module_.blocks, size, 2);        // `{}`
      reserveForText(module_.registers, size, 8);     // `.reg .b8 a;` (`,b` for another)
    }
    reserveForText(module_.parameters, size, 6);  // `.b8 a,` in a parameter list
    reserveForText(module_.variables, size, 16);  // `.shared .b8 a;`
    reserveForText(module_.functions, size, 12);  // `.func f(){}`
    // `.section .a{}`: grown by doubling, a file of many small sections held
    // the model of each section up to three times over at a step.
    reserveForText(module_.sections, size, 13);
  }

  // Reads statements to the end of the text; a syntax error ends the read
  // with a diagnostic.
  void run() {
    try {
      for (;;) {
        cur_.skipSpace();
        if (cur_.atEnd()) break;
        consumed_.passed(cur_.offset());
        moduleStatement();
      }
    } catch (const ParseError& e) {
      diagnostics_.error(e.loc, e.message);
    }
    consumed_.finish(cur_.offset());
  }

  // Takes the large `.section` blocks from `ahead` as the read reaches them.
  void readAheadBy(SectionsAhead& ahead) { ahead_ = &ahead; }
  Module take() { return std::move(module_); }
  Diagnostics& diagnostics() { return diagnostics_; }

 private:
  void moduleStatement() {
    SourceLoc at = cur_.loc();
    std::string_view d = cur_.directive();
    if (d.empty()) {
      if (cur_.peek() == '{' || cur_.peek() == '}')
        cur_.fail(std::string("unexpected '") + cur_.peek() + "' at module scope");
      if (cur_.peek() == ';') {  // stray empty statement
        cur_.advance();
        return;
      }
      cur_.fail("expected a directive at module scope");
    }
    if (d == ".version") return versionDirective(at);
    if (d == ".target") return targetDirective(at);
    if (d == ".address_size") return addressSizeDirective(at);
    if (d == ".file") return fileDirective(at);
    if (d == ".loc") return locDirective(at, -1);
    if (d == ".section") return sectionDirective(at, cur_.offset() - d.size());
    rejectUnacceptedDirective(d, at);
    if (d == ".entry" || d == ".func") return function(d == ".entry", Linkage::none, at);

    Linkage linkage = linkageFromDirective(d);
    if (linkage != Linkage::none) {
      cur_.skipSpace();
      SourceLoc next = cur_.loc();
      std::string_view d2 = cur_.directive();
      if (d2 == ".entry" || d2 == ".func") return function(d2 == ".entry", linkage, at);
      StateSpace space = spaceFromDirective(d2);
      if (space != StateSpace::none) return variableDeclaration(space, linkage, -1, at);
      if (d2.empty()) cur_.fail(next, "expected a declaration after '" + std::string(d) + "'");
      cur_.skipStatement();  // e.g. `.extern .callprototype`
      return;
    }
    StateSpace space = spaceFromDirective(d);
    if (space != StateSpace::none) return variableDeclaration(space, Linkage::none, -1, at);
    // .alias, .pragma, and directives we have no use for: statements ending in ';'.
    cur_.skipStatement();
  }

  // Directives LLVM writes that ptxas does not read: named, where skipping
  // them as unknown statements would run on to the next ';' (swallowing an
  // instruction) or to the end of the file (a `{ ... }` block of source text).
  void rejectUnacceptedDirective(std::string_view d, SourceLoc at) {
    if (d == ".loc_intermediate" || d == ".nv_intermediate_source_section")
      cur_.fail(at, "'" + std::string(d) +
                        "' (LLVM's multi-level line tables, proposed in 2026) is not PTX that ptxas 13.0 accepts "
                        "(\"Parsing error near '" + std::string(d) + "': syntax error\")");
  }

  void versionDirective(SourceLoc at) {
    cur_.skipInlineSpace();
    const char* s = cur_.pos();
    unsigned major = 0, minor = 0;
    auto r = std::from_chars(s, cur_.end(), major);
    if (r.ec != std::errc() || r.ptr == cur_.end() || *r.ptr != '.')
      cur_.fail("expected a version number like 7.5");
    auto r2 = std::from_chars(r.ptr + 1, cur_.end(), minor);
    if (r2.ec != std::errc()) cur_.fail("expected a version number like 7.5");
    cur_.advance(static_cast<size_t>(r2.ptr - s));
    module_.version = {major, minor, true};
    module_.versionLoc = at;
  }

  void targetDirective(SourceLoc at) {
    module_.targetLoc = at;
    for (;;) {
      cur_.skipInlineSpace();
      std::string_view t = cur_.identifier();
      if (t.empty()) cur_.fail("expected a target name");
      module_.targets.emplace_back(t);
      if (t == "debug") module_.debug = true;
      cur_.skipInlineSpace();
      if (!cur_.consume(',')) break;
    }
  }

  void addressSizeDirective(SourceLoc at) {
    cur_.skipInlineSpace();
    SourceLoc valueLoc = cur_.loc();
    uint64_t v = cur_.unsignedNumber("an address size");
    if (v != 32 && v != 64) cur_.fail(valueLoc, ".address_size must be 32 or 64");
    module_.addressSize = static_cast<unsigned>(v);
    module_.addressSizeLoc = at;
  }

  // A number that must fit in 32 bits (file indices, lines, columns):
  // `.file 4294967297` must not silently become `.file 1`.
  unsigned smallNumber(const char* what) {
    SourceLoc at = cur_.loc();
    uint64_t v = cur_.unsignedNumber(what);
    if (v > UINT32_MAX) cur_.fail(at, std::string(what) + " out of range (at most 4294967295)");
    return static_cast<unsigned>(v);
  }

  void fileDirective(SourceLoc at) {
    FileEntry f;
    f.loc = at;
    cur_.skipInlineSpace();
    f.index = smallNumber("a file number");
    cur_.skipInlineSpace();
    f.path = std::string(cur_.stringLiteral());
    cur_.skipInlineSpace();
    // clang's assembler output for DWARF 5 names the directory and the file
    // apart (`.file 1 "/src" "k.cu"`): not PTX, and ptxas stops at it with
    // a bare syntax error. Said here with what to write instead.
    if (cur_.peek() == '"')
      cur_.fail(cur_.loc(), "a second string in .file: PTX takes one path (`.file N \"dir/name\"`); "
                            "`.file N \"dir\" \"name\"` is the DWARF 5 form of other assemblers, which ptxas rejects");
    if (cur_.consume(',')) {  // .file N "path", timestamp, size
      cur_.skipInlineSpace();
      f.timestamp = cur_.unsignedNumber("a timestamp");
      cur_.skipInlineSpace();
      if (cur_.consume(',')) {
        cur_.skipInlineSpace();
        f.size = cur_.unsignedNumber("a file size");
      }
    }
    module_.files.push_back(std::move(f));
  }

  // `.loc FILE LINE [COL]`, for inlined code followed by
  // `, function_name LABEL, inlined_at FILE LINE [COL]` (both, in this order:
  // ptxas reports anything else as a syntax error).
  void locDirective(SourceLoc at, int32_t function) {
    const bool recorded = options_.bodies || function < 0;
    LocRecord r;
    r.loc = at;
    r.function = function;
    if (function >= 0) r.instruction = static_cast<uint32_t>(module_.instructions.size());
    cur_.skipInlineSpace();
    SourcePosition p = sourcePosition();
    r.file = p.file;
    r.line = p.line;
    r.col = p.col;
    if (cur_.consume(',')) {
      LocInlining inlining;
      cur_.skipInlineSpace();
      inlining.functionNameLoc = cur_.loc();
      if (cur_.identifier() != "function_name")
        cur_.fail(inlining.functionNameLoc,
                  "expected 'function_name' after ',' in .loc (ptxas: it comes before inlined_at)");
      cur_.skipInlineSpace();
      SourceLoc labelLoc = cur_.loc();
      std::string_view label = cur_.identifier();
      if (label.empty()) cur_.fail(labelLoc, "expected a label after function_name");
      cur_.skipInlineSpace();
      if (!cur_.consume(','))
        cur_.fail("expected ', inlined_at FILE LINE COL' after function_name (ptxas needs both)");
      cur_.skipInlineSpace();
      inlining.inlinedAtLoc = cur_.loc();
      if (cur_.identifier() != "inlined_at")
        cur_.fail(inlining.inlinedAtLoc, "expected 'inlined_at' after function_name");
      cur_.skipInlineSpace();
      inlining.inlinedAt = sourcePosition();
      if (recorded) {
        inlining.functionName = internLocFunctionName(label);
        r.inlining = static_cast<uint32_t>(module_.locInlinings.size());
        module_.locInlinings.push_back(inlining);
      }
    }
    if (recorded) module_.locs.push_back(r);
  }

  SourcePosition sourcePosition() {
    SourcePosition p;
    p.file = smallNumber("a file number");
    cur_.skipInlineSpace();
    p.line = smallNumber("a line number");
    cur_.skipInlineSpace();
    if (isDigit(cur_.peek())) p.col = smallNumber("a column");
    cur_.skipInlineSpace();
    return p;
  }

  uint32_t internLocFunctionName(std::string_view label) {
    // nvcc names the same few inlined callees again and again.
    if (!module_.locFunctionNames.empty() && module_.locFunctionNames.back() == label)
      return static_cast<uint32_t>(module_.locFunctionNames.size() - 1);
    auto [it, added] =
        locFunctionNameIndex_.try_emplace(std::string(label), static_cast<uint32_t>(module_.locFunctionNames.size()));
    if (added) module_.locFunctionNames.push_back(it->first);
    return it->second;
  }

  // ---- functions ------------------------------------------------------------
  void function(bool isEntry, Linkage linkage, SourceLoc at) {
    Function f;
    f.isEntry = isEntry;
    f.linkage = linkage;
    f.loc = at;
    cur_.skipSpace();
    f.firstReturn = f.firstParam = f.endParam = static_cast<uint32_t>(module_.parameters.size());
    if (!isEntry && cur_.peek() == '(') parameterList();
    f.firstParam = f.endParam = static_cast<uint32_t>(module_.parameters.size());
    cur_.skipSpace();
    SourceLoc nameLoc = cur_.loc();
    std::string_view name = cur_.identifier();
    if (name.empty()) cur_.fail(nameLoc, "expected a function name");
    f.name = std::string(name);
    cur_.skipSpace();
    if (cur_.peek() == '(') parameterList();
    f.endParam = static_cast<uint32_t>(module_.parameters.size());
    // Performance directives (.maxntid 1, 1, 1 / .noreturn / .pragma "..."), then body or ';'.
    for (;;) {
      cur_.skipSpace();
      char c = cur_.peek();
      if (c == ';') {
        cur_.advance();
        break;
      }
      if (c == '{') {
        f.hasBody = true;
        break;
      }
      if (c == '.' || isDigit(c) || c == ',') {
        if (!cur_.directive().empty()) continue;
        if (cur_.consume(',')) continue;
        cur_.unsignedNumber("a number");
        continue;
      }
      if (c == '"') {
        cur_.stringLiteral();
        continue;
      }
      if (cur_.atEnd()) cur_.fail("expected '{' or ';' after the declaration of " + f.name);
      cur_.fail(std::string("unexpected '") + c + "' in the declaration of " + f.name);
    }
    // A declaration's empty ranges sit where its text does: ranges stay in order.
    f.firstInstruction = f.endInstruction = static_cast<uint32_t>(module_.instructions.size());
    f.firstLabel = f.endLabel = static_cast<uint32_t>(module_.labels.size());
    f.firstRegister = f.endRegister = static_cast<uint32_t>(module_.registers.size());
    int32_t index = static_cast<int32_t>(module_.functions.size());
    module_.functions.push_back(std::move(f));
    if (module_.functions.back().hasBody) body(index);
  }

  // Appends the list's parameters to Module::parameters.
  void parameterList() {
    cur_.expect('(', "to open a parameter list");
    cur_.skipSpace();
    if (cur_.consume(')')) return;
    for (;;) {
      cur_.skipSpace();
      module_.parameters.push_back(declarator());
      cur_.skipSpace();
      if (cur_.consume(')')) return;
      if (!cur_.consume(',')) cur_.fail("expected ',' or ')' in a parameter list");
    }
  }

  // One `[.space] [.align N] [.ptr .space .align N] [.vN] .type name[dims]`.
  // The state space of a parameter defaults to .param.
  Variable declarator() {
    Variable v;
    v.loc = cur_.loc();
    v.space = StateSpace::param;
    bool afterPtr = false;
    for (;;) {
      cur_.skipSpace();
      std::string_view d = cur_.directive();
      if (d.empty()) break;
      if (d == ".ptr") {
        afterPtr = true;
      } else if (d == ".align") {
        cur_.skipSpace();
        uint64_t a = cur_.unsignedNumber("an alignment");
        if (!afterPtr) v.align = static_cast<uint32_t>(a);
      } else if (const TypeDirective* type = typeOf(d)) {
        v.type = type->name;
      } else if (StateSpace s = spaceFromDirective(d); s != StateSpace::none && !afterPtr) {
        v.space = s;
      }
    }
    SourceLoc nameLoc = cur_.loc();
    std::string_view name = cur_.identifier();
    if (name.empty()) cur_.fail(nameLoc, "expected a parameter name");
    v.name = keepName(name);
    v.loc = nameLoc;
    dimensions(v);
    return v;
  }

  // Appends `[N]...` to Module::dims as `v`'s. A declaration that is not
  // kept (a register's) gives them back with dropDimensions.
  void dimensions(Variable& v) {
    v.firstDim = v.endDim = static_cast<uint32_t>(module_.dims.size());
    for (;;) {
      cur_.skipSpace();
      if (!cur_.consume('[')) return;
      cur_.skipSpace();
      uint64_t n = 0;
      if (cur_.peek() != ']') n = cur_.unsignedNumber("an array size");
      cur_.skipSpace();
      cur_.expect(']', "to close an array size");
      module_.dims.push_back(n);
      v.endDim = static_cast<uint32_t>(module_.dims.size());
    }
  }
  void dropDimensions(Variable& v) {
    module_.dims.resize(v.firstDim);
    v.endDim = v.firstDim;
  }

  // `.global .align 4 .b8 name[16] = {...};`, `.reg .b32 %r<4>, %x;`
  void variableDeclaration(StateSpace space, Linkage linkage, int32_t function, SourceLoc at) {
    Variable proto;
    proto.space = space;
    proto.linkage = linkage;
    proto.function = function;
    proto.loc = at;
    for (;;) {
      cur_.skipSpace();
      std::string_view d = cur_.directive();
      if (d.empty()) break;
      if (d == ".align") {
        cur_.skipSpace();
        proto.align = static_cast<uint32_t>(cur_.unsignedNumber("an alignment"));
      } else if (const TypeDirective* type = typeOf(d)) {
        proto.type = type->name;
      } else if (Linkage l = linkageFromDirective(d); l != Linkage::none) {
        proto.linkage = l;
      }
      // .v2/.v4, .attribute(...) and the like change nothing we index.
    }
    for (;;) {
      cur_.skipSpace();
      SourceLoc nameLoc = cur_.loc();
      std::string_view name = cur_.identifier();
      if (name.empty()) cur_.fail(nameLoc, "expected a variable name");
      cur_.skipSpace();
      if (space == StateSpace::reg && cur_.peek() == '<') {
        registerRange(function, name, proto.type, nameLoc);
      } else {
        Variable v = proto;
        v.loc = nameLoc;
        dimensions(v);
        if (function >= 0 && !options_.bodies) {
          dropDimensions(v);  // read, not recorded (ReadOptions::bodies)
        } else if (space == StateSpace::reg && function >= 0) {
          dropDimensions(v);
          addRegister(function, {keepName(name), v.type, 0, block_, nameLoc});
        } else {
          v.name = keepName(name);
          if (function >= 0) v.block = block_;
          module_.variables.push_back(std::move(v));
        }
      }
      cur_.skipSpace();
      if (cur_.consume(',')) continue;
      if (cur_.consume(';')) return;
      if (cur_.peek() == '=') {  // initializer: nothing in it is indexed
        cur_.skipStatement();
        return;
      }
      cur_.fail("expected ',' or ';' after a declaration");
    }
  }

  void registerRange(int32_t function, std::string_view prefix, SymbolName type, SourceLoc loc) {
    cur_.expect('<', "");
    cur_.skipSpace();
    uint64_t n = cur_.unsignedNumber("a register count");
    cur_.skipSpace();
    cur_.expect('>', "to close a register range");
    if (n == 0 || n > UINT32_MAX) cur_.fail(loc, "register count out of range");
    if (function < 0) cur_.fail(loc, ".reg declarations belong inside a function body");
    if (!options_.bodies) return;
    addRegister(function, {keepName(prefix), type, static_cast<uint32_t>(n), block_, loc});
  }

  // Bodies do not nest: the function's registers so far end the vector.
  void addRegister(int32_t function, const RegisterDecl& r) {
    module_.registers.push_back(r);
    module_.functions[static_cast<size_t>(function)].endRegister = static_cast<uint32_t>(module_.registers.size());
  }

  void body(int32_t function) {
    Function& f = module_.functions[static_cast<size_t>(function)];
    f.bodyBegin = cur_.loc();
    // Kept current as instructions are read, so a body cut short by a
    // syntax error still has a well-formed range.
    f.firstInstruction = f.endInstruction = static_cast<uint32_t>(module_.instructions.size());
    function_ = function;
    cur_.expect('{', "to open a function body");
    unsigned depth = 1;
    block_ = -1;
    while (depth > 0) {
      cur_.skipSpace();
      if (cur_.atEnd()) cur_.fail(f.bodyBegin, "unterminated function body of " + f.name);
      char c = cur_.peek();
      SourceLoc at = cur_.loc();
      if (c == '{') {
        cur_.advance();
        ++depth;
        openBlock(function, at);
      } else if (c == '}') {
        cur_.advance();
        --depth;
        if (depth > 0) closeBlock(at);
      } else if (c == '.') {
        consumed_.passed(cur_.offset());
        bodyDirective(function, at);
      } else if (isIdentStart(c)) {
        labelOrInstruction(function, at);
      } else {
        // A predicated instruction `@%p1 bra ...;` and the like.
        if (c != ';') instruction(at);
        cur_.skipStatement();
      }
    }
    module_.functions[static_cast<size_t>(function)].bodyEnd = cur_.loc();
    function_ = -1;
  }

  void openBlock(int32_t function, SourceLoc at) {
    Block b;
    b.function = function;
    b.parent = block_;
    b.open = at;
    b.firstInstruction = b.endInstruction = static_cast<uint32_t>(module_.instructions.size());
    block_ = static_cast<int32_t>(module_.blocks.size());
    module_.blocks.push_back(b);
  }

  void closeBlock(SourceLoc at) {
    Block& b = module_.blocks[static_cast<size_t>(block_)];
    b.close = at;
    b.endInstruction = static_cast<uint32_t>(module_.instructions.size());
    block_ = b.parent;
  }

  // Extends the function's range; a block's is set when it closes (a block
  // left open by a syntax error keeps an empty range).
  void instruction(SourceLoc at) {
    if (!options_.bodies) return;
    InstructionPositionsEncoding::push_back(module_.instructions, {at.line, at.col});
    module_.functions[static_cast<size_t>(function_)].endInstruction =
        static_cast<uint32_t>(module_.instructions.size());
  }

  void bodyDirective(int32_t function, SourceLoc at) {
    std::string_view d = cur_.directive();
    if (d.empty()) cur_.fail("expected a directive");
    if (d == ".loc") return locDirective(at, function);
    if (d == ".file") return fileDirective(at);
    rejectUnacceptedDirective(d, at);
    StateSpace space = spaceFromDirective(d);
    if (space != StateSpace::none) return variableDeclaration(space, Linkage::none, function, at);
    cur_.skipStatement();  // .pragma, .maxnreg, ...
  }

  void labelOrInstruction(int32_t function, SourceLoc at) {
    std::string_view name = cur_.identifier();
    cur_.skipInlineSpace();
    if (cur_.peek() == ':' && cur_.peekAt(1) != ':') {
      cur_.advance();
      if (!options_.bodies) return;
      uint32_t index = static_cast<uint32_t>(module_.labels.size());
      module_.labels.push_back({keepName(name), static_cast<uint32_t>(module_.instructions.size()), at.line});
      module_.functions[static_cast<size_t>(function)].endLabel = index + 1;
      return;
    }
    instruction(at);
    cur_.skipStatement();
  }

  // ---- sections -------------------------------------------------------------
  void sectionDirective(SourceLoc at, uint64_t textBegin) {
    const SectionHeader header = readSectionHeader(cur_);
    // By name through a map: a file of many distinct section names must not
    // compare each `.section` with every section before it.
    auto [known, added] = sectionIndex_.try_emplace(std::string(header.name), module_.sections.size());
    if (added) {
      // Only a large block is asked for: a small one would be waited for
      // no sooner than it is read.
      const uint64_t blockBytes = blockTextBound(cur_);
      if (ahead_ && blockBytes >= ahead_->minBlockBytes() && adoptBlockReadAhead(header.name, at, textBegin)) return;
      startSectionImage(module_.sections.emplace_back(), header.name, at, blockBytes);
    }
    SectionImage& image = module_.sections[known->second];
    size_t before = image.bytes.size();
    readSectionBody(cur_, image, header.brace, diagnostics_, consumed_);
    image.blocks.push_back({textBegin, cur_.offset()});
    if (before > 0 && image.bytes.size() > before) {
      diagnostics_.warning(at, "second non-empty block of section " + image.name +
                                   ": read as a continuation, but ptxas 13 does not concatenate blocks "
                                   "(it overlays them at offset 0 and rejects blocks that differ)")
          .rule = "split-section";
    }
  }

  // A section's first block, when the second thread read it (SectionsAhead):
  // taken as it is, the cursor moved past it. False when it did not.
  bool adoptBlockReadAhead(std::string_view name, SourceLoc at, uint64_t textBegin) {
    std::optional<BlockReadAhead> block = ahead_->take(textBegin);
    if (!block || block->image.name != name || block->image.loc != at) return false;
    SectionImage& image = module_.sections.emplace_back(std::move(block->image));
    image.blocks.push_back({textBegin, block->end});
    diagnostics_.items.insert(diagnostics_.items.end(), std::make_move_iterator(block->diagnostics.items.begin()),
                              std::make_move_iterator(block->diagnostics.items.end()));
    cur_.moveTo(block->end, block->endLoc);
    work::step(work::sectionsReadAhead);
    return true;
  }

  SymbolName keepName(std::string_view name) { return SymbolName::fromKept(module_.names.keep(name)); }

  Cursor cur_;
  const ReadOptions& options_;
  ConsumedText consumed_;
  Module module_;
  std::map<std::string, size_t, work::CountingLess<work::sectionLookup>> sectionIndex_;  // name -> index in module_.sections
  SectionsAhead* ahead_ = nullptr;  // the blocks read on a second thread, if any
  Diagnostics diagnostics_;  // warnings, and the error that ended the read
  int32_t function_ = -1;  // the function whose body is being read
  int32_t block_ = -1;     // the innermost open `{ }` block of the body being read
  std::unordered_map<std::string, uint32_t> locFunctionNameIndex_;
};

// PTX is text: a NUL byte means a binary or corrupted file. Reports where
// the one at `nul` is.
void reportNulByte(std::string_view text, size_t nul, Diagnostics& diags) {
  std::string_view before = text.substr(0, nul);
  size_t lines = static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
  size_t lineStart = before.rfind('\n');
  uint32_t col = static_cast<uint32_t>(lineStart == std::string_view::npos ? nul + 1 : nul - lineStart);
  diags.error({static_cast<uint32_t>(lines + 1), col}, "NUL byte in the input: this is not PTX text");
}

// Two ways a text editor makes PTX that ptxas refuses ("Unexpected non-ASCII
// character", "syntax error" on line 1), each said plainly instead of as the
// syntax error the reader would meet later.
bool rejectBomOrCrLines(std::string_view text, Diagnostics& diags) {
  if (text.starts_with("\xEF\xBB\xBF")) {
    diags.error({1, 1}, "the file starts with a UTF-8 byte order mark, which ptxas rejects; save it without one");
    return true;
  }
  // Only a carriage return before the first newline tells (a scan of the
  // line, not of the whole text).
  const size_t cr = text.substr(0, text.find('\n')).find('\r');
  if (cr != std::string_view::npos && (cr + 1 == text.size() || text[cr + 1] != '\n')) {
    diags.error({1, static_cast<uint32_t>(cr + 1)},
                "lines end in a carriage return alone (classic Mac OS line endings), which ptxas reads as one line; "
                "convert them to \\n or \\r\\n");
    return true;
  }
  return false;
}

// Reads on the caller's thread, and the large `.section` blocks on a second
// one beside it (SectionsAhead).
void readBesideSections(Reader& reader, std::string_view text, const ReadOptions& options,
                        uint64_t minBlockBytes, AheadSchedule schedule) {
  SectionsAhead ahead(text, options, minBlockBytes);
  reader.readAheadBy(ahead);
  if (schedule == AheadSchedule::first) {
    ahead.run();
    reader.run();
    return;
  }
  runBeside(
      [&] {
        struct StopAhead {
          SectionsAhead& ahead;
          ~StopAhead() { ahead.stop(); }
        } stop{ahead};
        reader.run();
      },
      [&] { ahead.run(); });
}

}  // namespace

ReadResult read(std::string_view text, std::string_view filename, const ReadOptions& options) {
  return readWithSectionsAhead(text, filename, options, SectionsAhead::kMinBlockBytes);
}

ReadResult readWithSectionsAhead(std::string_view text, std::string_view filename, const ReadOptions& options,
                                 uint64_t minBlockBytes, AheadSchedule schedule) {
  ReadResult result;
  if (text.size() > UINT32_MAX) {
    result.diagnostics.error({1, 1}, "file is larger than 4 GiB; PTX this large is not supported");
    return result;
  }
  if (const void* nul = std::memchr(text.data(), '\0', text.size())) {
    reportNulByte(text, static_cast<size_t>(static_cast<const char*>(nul) - text.data()), result.diagnostics);
    return result;
  }
  if (rejectBomOrCrLines(text, result.diagnostics)) return result;
  Reader reader(text, filename, options);
  if (options.threads > 1 && text.size() >= minBlockBytes)
    readBesideSections(reader, text, options, minBlockBytes, schedule);
  else
    reader.run();
  result.diagnostics = std::move(reader.diagnostics());
  result.module = reader.take();
  if (options.index) result.module.reindex();
  return result;
}

}  // namespace ptxdwarf::ptx
