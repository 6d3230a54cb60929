// The PTX reader: one pass over the text. Module-level directives and
// declarations are indexed; instruction bodies are skipped statement by
// statement; `.section` blocks are assembled into SectionImages.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>


#include "../parallel.h"
#include "../reserve.h"
#include "chunks.h"
#include "lexer.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/leb128.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/work.h"

namespace ptxdwarf::ptx {
namespace {

// The vectors that grow with the size of the text (instructions, labels,
// `.loc` records, declarations, section bytes and relocations) are reserved
// for the most `textBytes` could hold, at `minItemBytes` of text an item
// (see reserve.h).
template <class T>
void reserveForText(std::vector<T>& v, uint64_t textBytes, uint64_t minItemBytes) {
  reserveUpTo(v, textBytes / minItemBytes + 1);  // filled through fillAhead, not in huge pages
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

// Width in bytes of a data directive inside a section, 0 if it is not one.
unsigned dataWidth(std::string_view d) {
  if (d.size() < 3 || d[1] != 'b') return 0;  // one test for the rest of the file's directives
  if (d == ".b8") return 1;
  if (d == ".b16") return 2;
  if (d == ".b32") return 4;
  if (d == ".b64") return 8;
  return 0;
}

SourceMap findOperandPositions(std::string_view text, const SectionSource::Place& from, const SectionSource::Place& to,
                               std::span<const uint8_t> bytes);

class Reader {
 public:
  Reader(std::string_view text, std::string_view filename, const ReadOptions& options, Chunk chunk = {})
      // A chunk that stops inside a section reads up to the stop and no
      // further: its text ends there, and its section is left open.
      : cur_(chunk.stopsInSection ? text.substr(0, std::min<uint64_t>(chunk.stop, text.size())) : text, chunk.begin,
             chunk.line),
        text_(text),
        stop_(chunk.stop),
        options_(options),
        recordPositions_(options.operandPositions == ReadOptions::OperandPositions::recorded),
        consumedFrom_(chunk.begin),
        continues_(chunk.continues),
        stopsInSection_(chunk.stopsInSection) {
    module_.filename = std::string(filename);
    // The first reader's module is what the others' parts are appended to:
    // it reserves for the whole text, so that joining them copies nothing of it.
    const uint64_t end = chunk.begin == 0 ? text.size() : std::min<uint64_t>(chunk.stop, text.size());
    begin_ = chunk.begin;
    remaining_ = end > chunk.begin ? end - chunk.begin : 0;
    if (options.bodies) {
      module_.instructions.reserve(remaining_ / 4 + 1);     // `ret;`
      reserveForText(module_.labels, remaining_, 4);        // `$L:` and a newline
      reserveForText(module_.locs, remaining_, 10);         // `.loc 1 1 1`
      reserveForText(module_.blocks, remaining_, 2);        // `{}`
      reserveForText(module_.registers, remaining_, 8);     // `.reg .b8 a;` (`,b` for another)
    }
    reserveForText(module_.parameters, remaining_, 6);  // `.b8 a,` in a parameter list
    reserveForText(module_.variables, remaining_, 16);  // `.shared .b8 a;`
    reserveForText(module_.functions, remaining_, 12);  // `.func f(){}`
    // `.section .a{}`: grown by doubling, a file of many small sections held
    // the model of each section up to three times over at a step.
    reserveForText(module_.sections, remaining_, 13);
  }

  // Reads statements up to the stop or the end of the text; a syntax error
  // ends the read with a diagnostic.
  void run() {
    try {
      if (!continues_.empty()) continueSection();
      for (;;) {
        cur_.skipSpace();
        if (cur_.atEnd() || cur_.offset() >= stop_) break;
        consumed();
        moduleStatement();
      }
    } catch (const ParseError& e) {
      diagnostics_.error(e.loc, e.message);
      failed_ = true;
    }
    if (options_.consumed && cur_.offset() > consumedFrom_) options_.consumed(consumedFrom_, cur_.offset());
  }

  // The positions of the operands of a section read without them
  // (OperandPositions::fromText) between two of its places: the text there
  // read again (this reader's ends at `to`), with them recorded. None when
  // the bytes read are not `bytes`, the read does not end at `to`'s
  // position, or the text no longer reads: it changed since.
  SourceMap operandPositions(const SectionSource::Place& from, const SectionSource::Place& to,
                             std::span<const uint8_t> bytes) {
    recordPositions_ = true;
    SectionImage image;
    try {
      cur_.moveTo(from.textOffset, from.at);
      sectionBody(image, from.at);
    } catch (const ParseError&) {
      return {};
    }
    const bool same = std::equal(image.bytes.begin(), image.bytes.end(), bytes.begin(), bytes.end());
    if (!same || cur_.offset() != to.textOffset || cur_.loc() != to.at) return {};
    return std::move(image.sourceMap);
  }

  bool failed() const { return failed_; }
  // Where the read ended: the stop itself when it is a statement boundary.
  uint64_t offset() const { return cur_.offset(); }
  // The section whose body the read stopped inside, between two directives,
  // at its chunk's stop: where the next chunk goes on. Empty when it did not.
  const std::string& leftOpen() const { return leftOpen_; }
  Module take() { return std::move(module_); }
  const Module& module() const { return module_; }
  Diagnostics& diagnostics() { return diagnostics_; }

 private:
  // Between statements (and between a section's directives): nothing before
  // the cursor is looked at again.
  void consumed() {
    if (!options_.consumed || cur_.offset() - consumedFrom_ < options_.consumedStep) return;
    options_.consumed(consumedFrom_, cur_.offset());
    consumedFrom_ = cur_.offset();
  }

  // ---- module scope -------------------------------------------------------
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
    if (recorded) {
      module_.locs.push_back(r);
      fillAhead(module_.locs);
    }
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
    fillAhead(module_.functions);
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
      fillAhead(module_.parameters);
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
          fillAhead(module_.variables);
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
    fillAhead(module_.registers);
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
        consumed();
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
    fillAhead(module_.blocks);
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
    module_.instructions.push_back({at.line, at.col});
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
      fillAhead(module_.labels);
      module_.functions[static_cast<size_t>(function)].endLabel = index + 1;
      return;
    }
    instruction(at);
    cur_.skipStatement();
  }

  // ---- sections -------------------------------------------------------------
  void sectionDirective(SourceLoc at, uint64_t textBegin) {
    cur_.skipInlineSpace();
    SourceLoc nameLoc = cur_.loc();
    const char* s = cur_.pos();
    while (!cur_.atEnd() && (isIdentChar(cur_.peek()) || cur_.peek() == '.')) cur_.advance();
    std::string_view name(s, static_cast<size_t>(cur_.pos() - s));
    if (name.empty()) cur_.fail(nameLoc, "expected a section name");
    // ptxas also takes `.section .name, "flags"`-less forms only; attributes are not PTX.
    cur_.skipSpace();
    SourceLoc braceLoc = cur_.loc();
    cur_.expect('{', ("to open section " + std::string(name)).c_str());
    SectionImage& image = sectionNamed(name, at);
    if (image.source) image.source->addPlace(image.bytes.size(), cur_.offset(), cur_.loc());
    size_t before = image.bytes.size();
    sectionBody(image, braceLoc);
    blockEnded(image);
    image.blocks.push_back({textBegin, cur_.offset()});
    if (before > 0 && image.bytes.size() > before) {
      diagnostics_.warning(at, "second non-empty block of section " + image.name +
                                   ": read as a continuation, but ptxas 13 does not concatenate blocks "
                                   "(it overlays them at offset 0 and rejects blocks that differ)")
          .rule = "split-section";
    }
  }

  SectionImage& sectionNamed(std::string_view name, SourceLoc at) {
    // By name through a map: a file of many distinct section names must not
    // compare each `.section` with every section before it.
    auto [it, added] = sectionIndex_.try_emplace(std::string(name), module_.sections.size());
    if (!added) return module_.sections[it->second];
    SectionImage& s = module_.sections.emplace_back();
    s.name = std::string(name);
    s.loc = at;
    const uint64_t rest = blockTextBound();
    reserveForText(s.bytes, rest, 2);  // `0,` a byte
    if (recordPositions_) s.sourceMap.reserve(rest / 2);  // an entry per operand
    else s.source = std::make_shared<SectionSource>(text_, findOperandPositions);
    reserveForText(s.relocations, rest, 4);  // `.b32 a` and a newline
    return s;
  }

  // The text a section's vectors are reserved for when it is first named:
  // from here to the next '}' (where the block ends, unless a comment holds
  // one: then they grow past the reservation), within the rest of this
  // reader's text. The rest of the text alone made every section of a file
  // of many tiny ones reserve for all that follows it: address space
  // quadratic in their number, and a page or more of memory each.
  uint64_t blockTextBound() const {
    const uint64_t rest = remaining_ - std::min(remaining_, cur_.offset() - begin_);
    const char* from = cur_.pos();
    const size_t span = static_cast<size_t>(std::min<uint64_t>(rest, static_cast<uint64_t>(cur_.end() - from)));
    const void* brace = std::memchr(from, '}', span);
    return brace ? static_cast<uint64_t>(static_cast<const char*>(brace) - from) : rest;
  }

  // The rest of the section a chunk begins inside: its offsets count from
  // where the chunk begins (the join moves them on past what was read of it
  // before).
  void continueSection() {
    const uint64_t begin = cur_.offset();
    const SourceLoc at = cur_.loc();
    SectionImage& image = sectionNamed(continues_, at);
    if (image.source) image.source->addPlace(0, begin, at);
    sectionBody(image, at);
    blockEnded(image);
    image.blocks.push_back({begin, cur_.offset()});
  }

  void sectionBody(SectionImage& image, SourceLoc open) {
    for (;;) {
      cur_.skipSpace();
      if (cur_.atEnd() && stopsInSection_ && leftOpen_.empty()) {  // the text ends at the chunk's stop
        leftOpen_ = image.name;
        return;
      }
      if (cur_.atEnd()) cur_.fail(open, "unterminated section " + image.name + ": expected '}'");
      char c = cur_.peek();
      if (c == '}') {
        cur_.advance();
        return;
      }
      if (c == ';') {  // tolerated separator: `.b8 1; .b8 2` (ptxas 13 itself rejects it)
        cur_.advance();
        continue;
      }
      SourceLoc at = cur_.loc();
      if (c == '.') {
        betweenStatements(image);
        consumed();
        if (plainLines(image)) continue;
        unsigned width = dataDirective();
        if (width != 0) {
          dataOperands(image, width, kDataDirectives[width]);
          continue;
        }
        std::string_view d = cur_.directive();
        width = dataWidth(d);
        if (width == 0) {
          if (d.empty()) cur_.fail(at, "expected a data directive in section " + image.name);
          cur_.fail(at, "unknown directive '" + std::string(d) + "' inside section " + image.name +
                            " (expected .b8, .b16, .b32 or .b64)");
        }
        dataOperands(image, width, d);
        continue;
      }
      if (isIdentStart(c)) {
        std::string_view label = cur_.identifier();
        cur_.skipInlineSpace();
        if (!cur_.consume(':'))
          cur_.fail(at, "expected a data directive or a label in section " + image.name);
        image.labels.push_back({std::string(label), image.bytes.size(), at});
        continue;
      }
      cur_.fail(at, std::string("unexpected '") + c + "' in section " + image.name);
    }
  }

  // A run of plain data lines -- `.b8 N` a line (Cursor::byteLines), and
  // the other lines of nvcc, LLVM and this library's styles
  // (Cursor::plainDataLine) -- read without the general path's per-operand
  // checks: what the run stores is what dataOperands would have. False when
  // the cursor is not at one.
  bool plainLines(SectionImage& image) {
    // Each form is looked for where it fails fastest: nvcc's `.b8 N` lines,
    // then the other data lines -- and byte lines of the other forms first
    // once the other data lines meet one (a section written in them has few
    // else).
    bool any = false, anyForm = false;
    for (;; consumed()) {
      betweenStatements(image);
      if (byteRun(image, anyForm)) {
        any = true;
      } else if (const std::optional<Cursor::DataLine> data = cur_.plainDataLine(lineOperands_);
                 data && image.bytes.size() + uint64_t{data->width} * data->operands <= UINT32_MAX) {
        plainDataLine(image, *data);
        cur_.passLine(*data);
        anyForm = data->width == 1 && data->operands == 1;  // a byte line nvcc's form did not match
        any = true;
      } else {
        return any;  // past 4 GiB the general path says which operand does not fit
      }
    }
  }

  // Between two statements of a section's body: a place to read its text
  // again from, when one is due (SectionSource).
  void betweenStatements(SectionImage& image) {
    if (image.source && image.bytes.size() >= image.source->nextPlaceAt())
      image.source->addPlace(image.bytes.size(), cur_.offset(), cur_.loc());
  }
  // After a section's body (its `}`, or the end of a part's text inside it,
  // where the next part's first place is): a place.
  void blockEnded(SectionImage& image) {
    if (image.source) image.source->addPlace(image.bytes.size(), cur_.offset(), cur_.loc());
  }

  // A run of `.b8 N` lines (a million in a 20 MB nvcc -G file, a few at a
  // time between its other lines): their bytes stored at once, and their
  // positions as the first operand's and one column for the rest.
  bool byteRun(SectionImage& image, bool anyForm) {
    uint8_t values[256];
    const SourceLoc directive = cur_.loc();
    Cursor::ByteRun run{cur_.nvccByteLines(values), {directive.line, directive.col + 4}, 5};
    if (anyForm) cur_.byteLines(values, run);
    if (run.count == 0) return false;  // most lines of a packed section: nothing to store
    const uint64_t offset = image.bytes.size();
    if (offset + run.count > UINT32_MAX) {
      const uint64_t i = UINT32_MAX - offset;
      cur_.fail(i == 0 ? run.first : SourceLoc{run.first.line + static_cast<uint32_t>(i), run.col},
                "section " + image.name + " exceeds 4 GiB");
    }
    if (recordPositions_) {
      image.sourceMap.add(static_cast<uint32_t>(offset), run.first.line, run.first.col);
      image.sourceMap.addLines(static_cast<uint32_t>(offset + 1), run.first.line + 1, run.col,
                               static_cast<uint32_t>(run.count - 1));
    }
    image.bytes.insert(image.bytes.end(), values, values + run.count);
    fillAhead(image.bytes, run.count);
    return true;
  }

  // The operands of a line plainDataLine matched (in lineOperands_, as many
  // as it holds): literals the width holds, and plain symbols.
  void plainDataLine(SectionImage& image, const Cursor::DataLine& line) {
    const uint32_t begin = static_cast<uint32_t>(image.bytes.size());
    const uint32_t size = line.width * line.operands;
    image.bytes.resize(begin + size);  // zeros: a symbol's bytes, and a .b64 constant's high half
    uint32_t offset = begin;
    PlainOperand op;
    for (uint32_t i = 0; i < line.operands; ++i, offset += line.width) {
      op = i < lineOperands_.size() ? lineOperands_[i] : nextPlainOperand(op, line);
      if (recordPositions_) {
        const SourceLoc at = cur_.locAt(op.begin);
        image.sourceMap.add(offset, at.line, at.col);
      }
      if (op.symbol)
        image.addRelocation(offset, static_cast<uint8_t>(line.width),
                            std::string_view(op.begin, static_cast<size_t>(op.end - op.begin)), {}, 0);
      else
        storeLittleEndian(std::span(image.bytes).subspan(offset, std::min(line.width, 4u)), op.value);
    }
    fillAhead(image.bytes, size);
  }
  // The operand after `before` on a line plainDataLine matched.
  static PlainOperand nextPlainOperand(const PlainOperand& before, const Cursor::DataLine& line) {
    const char* p = before.end;
    while (*p != ',') ++p;  // blanks, then the comma: the line matched
    do ++p;
    while (isSpaceOrTab(*p));
    return plainOperand(p, line.newline, line.width, plainOperandMost(line.width));
  }
  // `.b8`, `.b16`, `.b32` or `.b64` at the cursor (nearly every line of a
  // debug section), matched by its bytes: the cursor moves past it and the
  // width comes back. 0, the cursor unmoved, for anything else.
  unsigned dataDirective() {
    if (cur_.peekAt(1) != 'b') return 0;
    const char a = cur_.peekAt(2), b = cur_.peekAt(3);
    unsigned width = 0, length = 4;
    if (a == '8') {
      width = 1;
      length = 3;
    } else if (a == '1' && b == '6') {
      width = 2;
    } else if (a == '3' && b == '2') {
      width = 4;
    } else if (a == '6' && b == '4') {
      width = 8;
    }
    if (width == 0 || isIdentChar(cur_.peekAt(length))) return 0;
    cur_.advance(length);
    return width;
  }
  static constexpr std::string_view kDataDirectives[9] = {"", ".b8", ".b16", "", ".b32", "", "", "", ".b64"};

  void dataOperands(SectionImage& image, unsigned width, std::string_view directive) {
    work::step(work::sectionLinesByOperand);
    for (;;) {
      cur_.skipSpace();
      dataOperand(image, width, directive);
      cur_.skipSpace();
      if (!cur_.consume(',')) return;
    }
  }

  void dataOperand(SectionImage& image, unsigned width, std::string_view directive) {
    SourceLoc at = cur_.loc();
    uint64_t offset = image.bytes.size();
    if (offset + width > UINT32_MAX) cur_.fail(at, "section " + image.name + " exceeds 4 GiB");
    if (recordPositions_) image.sourceMap.add(static_cast<uint32_t>(offset), at.line, at.col);
    char c = cur_.peek();
    if (isDigit(c) || c == '-') {
      if (c == '-') image.negativeOperands.push_back(static_cast<uint32_t>(offset));
      appendValue(image, width, integerOperand(width, directive, at));
    } else if (isIdentStart(c) || (c == '.' && isIdentChar(cur_.peekAt(1)))) {
      symbolOperand(image, width, directive, at);
    } else if (c == '}' || c == '\0' || c == ',') {
      cur_.fail(at, "expected an operand after " + std::string(directive));
    } else {
      cur_.fail(at, std::string("unexpected '") + c + "' in an operand of " + std::string(directive));
    }
  }

  // The operand's value as ptxas 13 writes it: negative numbers in two's
  // complement, range-checked as ptxas does ([-2^(w-1), 2^w - 1] for .b8 and
  // .b16). A non-negative .b32 or .b64 constant keeps only its low 32 bits
  // (measured: `.b64 0x1122334455667788` is written 88 77 66 55 00 00 00 00,
  // `.b32 0x112233445566` is accepted as 0x33445566); a negative one keeps
  // all 64 (`.b64 -4294967297` is ff ff ff ff fe ff ff ff). A constant that
  // loses bits is read as ptxas writes it, with a warning.
  uint64_t integerOperand(unsigned width, std::string_view directive, SourceLoc at) {
    bool negative = cur_.consume('-');
    if (negative) cur_.skipSpace();
    const char* s = cur_.pos();
    NumberScan n = scanNumberFast(s, cur_.end());
    if (!n.end) cur_.fail(at, "invalid number in " + std::string(directive) + " operand");
    if (n.overflow)
      cur_.fail(at, "constant overflow: " + std::string(s, n.end) + " does not fit in 64 bits");
    cur_.advance(static_cast<size_t>(n.end - s));  // a literal holds no newline
    const unsigned bits = width * 8;
    const uint64_t mask = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
    const uint64_t maxNegative = uint64_t{1} << (bits - 1);
    if (!negative && width >= 4 && n.value > UINT32_MAX) {
      diagnostics_.warning(at, std::string(directive) + " " + std::string(s, n.end) +
                                   ": ptxas 13 keeps only the low 32 bits of a non-negative " +
                                   std::string(directive) + " constant and writes " +
                                   hex(n.value & UINT32_MAX) + "; write the bytes with .b8 (or a negative number)")
          .rule = "wide-constant";
      return n.value & UINT32_MAX;
    }
    if (negative ? n.value > maxNegative : n.value > mask) {
      cur_.fail(at, "value out of range for type " + std::string(directive) + ": " +
                        (negative ? "-" : "") + std::to_string(n.value));
    }
    return (negative ? (~n.value + 1) : n.value) & mask;
  }

  void symbolOperand(SectionImage& image, unsigned width, std::string_view directive, SourceLoc at) {
    if (width < 4)
      cur_.fail(at, "symbolic operand in " + std::string(directive) +
                        ": ptxas accepts symbols only in .b32 and .b64 (\"Illegal type for dwarf data\")");
    const uint64_t offset = image.bytes.size();
    const std::string_view symbol = symbolName();
    std::string_view minus;
    int64_t addend = 0;
    cur_.skipInlineSpace();
    char c = cur_.peek();
    if (c == '+' || c == '-') {
      cur_.advance();
      cur_.skipInlineSpace();
      SourceLoc termLoc = cur_.loc();
      if (isDigit(cur_.peek())) {
        const char* s = cur_.pos();
        NumberScan n = scanNumber(s, cur_.end());
        if (!n.end) cur_.fail(termLoc, "invalid number in a symbolic operand");
        if (n.overflow || n.value > static_cast<uint64_t>(INT64_MAX))
          cur_.fail(termLoc, "addend out of range");
        cur_.moveTo(n.end);
        addend = c == '+' ? static_cast<int64_t>(n.value) : -static_cast<int64_t>(n.value);
      } else if (c == '-' && isIdentStart(cur_.peek())) {
        minus = symbolName();
      } else {
        cur_.fail(termLoc, std::string("expected a number") + (c == '-' ? " or a label" : "") +
                               " after '" + c + "'");
      }
    }
    image.addRelocation(offset, static_cast<uint8_t>(width), symbol, minus, addend);
    appendValue(image, width, 0);
  }

  std::string_view symbolName() {
    // Section names (`.debug_abbrev`) are symbols too.
    if (cur_.peek() == '.') return cur_.directive();
    return cur_.identifier();
  }

  static void appendValue(SectionImage& image, unsigned width, uint64_t value) {
    appendLittleEndian(image.bytes, value, width);
    fillAhead(image.bytes, width);
  }

  SymbolName keepName(std::string_view name) { return SymbolName::fromKept(module_.names.keep(name)); }

  Cursor cur_;
  std::string_view text_;  // all of it: sections read with OperandPositions::fromText view it
  uint64_t stop_;
  const ReadOptions& options_;
  // Each operand's position goes into its section's sourceMap as it is read
  // (ReadOptions::OperandPositions::recorded, and when they are found again).
  bool recordPositions_;
  uint64_t consumedFrom_;
  std::string continues_;        // the section this reader's chunk begins inside, if any
  bool stopsInSection_ = false;  // its text ends inside a section's body
  std::string leftOpen_;         // the section the read stopped inside (see leftOpen())
  uint64_t begin_ = 0;      // where this reader starts in the text
  uint64_t remaining_ = 0;  // bytes of text from there that its module may hold items of
  Module module_;
  std::map<std::string, size_t, work::CountingLess<work::sectionLookup>> sectionIndex_;  // name -> index in module_.sections
  Diagnostics diagnostics_;  // warnings, and the error that ended the read
  bool failed_ = false;
  int32_t function_ = -1;  // the function whose body is being read
  int32_t block_ = -1;     // the innermost open `{ }` block of the body being read
  std::unordered_map<std::string, uint32_t> locFunctionNameIndex_;
  // The operands of the plain data line being read (plainDataLine): this
  // library's lines hold at most 16, nvcc's all but a few of its strings
  // (one line in 900,000 of a 20 MB nvcc -G file holds more than 32; the
  // rest of it is read again from the last operand held).
  std::array<PlainOperand, 32> lineOperands_{};
};


SourceMap findOperandPositions(std::string_view text, const SectionSource::Place& from, const SectionSource::Place& to,
                               std::span<const uint8_t> bytes) {
  if (from.textOffset > to.textOffset || to.textOffset > text.size()) return {};
  ReadOptions options;
  options.bodies = false;
  // The text up to `to`, as a part of a parallel read that stops inside a
  // section reads it (and reserves nothing for a module).
  Reader reader(text, {}, options, Chunk{.begin = from.textOffset, .stop = to.textOffset, .stopsInSection = true});
  return reader.operandPositions(from, to, bytes);
}

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

// ---- reading on several threads --------------------------------------------

// Whether the part's first section is the rest of one a part before it
// left open (its chunk began inside it: Reader::continueSection).
bool continuesSection(const Module& part, const Chunk& chunk) {
  return !chunk.continues.empty() && !part.sections.empty() && part.sections.front().name == chunk.continues;
}

// Whether the parts' sections join as one reader would have read them: no
// section has blocks in two of the modules (joining those needs the
// one-reader path) but the rest of one a part left open, and a section read
// in parts holds what one reader takes (4 GiB).
bool sectionsJoin(const Module& into, std::span<const Module> parts, std::span<const Chunk> partChunks) {
  std::map<std::string_view, uint64_t> sizes;  // not Module::section per name: a scan each
  for (const SectionImage& s : into.sections) sizes.emplace(s.name, s.size());
  for (size_t i = 0; i < parts.size(); ++i)
    for (size_t k = 0; k < parts[i].sections.size(); ++k) {
      const SectionImage& s = parts[i].sections[k];
      work::step(work::sectionLookup);
      if (k == 0 && continuesSection(parts[i], partChunks[i])) {  // the rest of one before it
        const auto open = sizes.find(s.name);
        if (open == sizes.end() || (open->second += s.size()) > UINT32_MAX) return false;  // as one reader stops
        continue;
      }
      if (!sizes.emplace(s.name, s.size()).second) return false;
    }
  return true;
}

// Where a part's items go in the joined module: how many the module and the
// parts before it hold.
struct PartBase {
  int32_t function = 0;
  int32_t block = 0;
  uint32_t label = 0;
  uint32_t instruction = 0;
  uint32_t locFunctionName = 0;
  uint32_t locInlining = 0;
  uint32_t parameter = 0;
  uint32_t reg = 0;  // into Module::registers
  uint32_t dim = 0;
};

std::vector<PartBase> partBases(const Module& into, std::span<const Module> parts) {
  std::vector<PartBase> bases(parts.size());
  PartBase next{static_cast<int32_t>(into.functions.size()), static_cast<int32_t>(into.blocks.size()),
                static_cast<uint32_t>(into.labels.size()), static_cast<uint32_t>(into.instructions.size()),
                static_cast<uint32_t>(into.locFunctionNames.size()), static_cast<uint32_t>(into.locInlinings.size()),
                static_cast<uint32_t>(into.parameters.size()),
                static_cast<uint32_t>(into.registers.size()), static_cast<uint32_t>(into.dims.size())};
  for (size_t i = 0; i < parts.size(); ++i) {
    bases[i] = next;
    next.function += static_cast<int32_t>(parts[i].functions.size());
    next.block += static_cast<int32_t>(parts[i].blocks.size());
    next.label += static_cast<uint32_t>(parts[i].labels.size());
    next.instruction += static_cast<uint32_t>(parts[i].instructions.size());
    next.locFunctionName += static_cast<uint32_t>(parts[i].locFunctionNames.size());
    next.locInlining += static_cast<uint32_t>(parts[i].locInlinings.size());
    next.parameter += static_cast<uint32_t>(parts[i].parameters.size());
    next.reg += static_cast<uint32_t>(parts[i].registers.size());
    next.dim += static_cast<uint32_t>(parts[i].dims.size());
  }
  return bases;
}

int32_t shifted(int32_t index, int32_t base) { return index < 0 ? index : index + base; }
uint32_t shifted(uint32_t index, uint32_t base) { return index == kNoIndex ? index : index + base; }

// The module-scope facts and the items no other item points into.
void appendModuleScope(Module& into, Module& part, const Chunk& chunk) {
  if (part.version.present) {
    into.version = part.version;
    into.versionLoc = part.versionLoc;
  }
  // A .target that failed to parse still moved the location (the reader
  // records it before reading the names), so the location follows the part's.
  if (part.targetLoc.line != 0) into.targetLoc = part.targetLoc;
  into.targets.insert(into.targets.end(), part.targets.begin(), part.targets.end());
  into.debug = into.debug || part.debug;
  if (part.addressSizeLoc.line != 0) {
    into.addressSize = part.addressSize;
    into.addressSizeLoc = part.addressSizeLoc;
  }
  std::move(part.files.begin(), part.files.end(), std::back_inserter(into.files));
  auto sections = part.sections.begin();
  if (continuesSection(part, chunk)) {  // sectionsJoin found the section it continues
    const auto open = std::find_if(into.sections.begin(), into.sections.end(),
                                   [&](const SectionImage& s) { return s.name == chunk.continues; });
    open->appendRest(std::move(*sections++));
  }
  std::move(sections, part.sections.end(), std::back_inserter(into.sections));
  into.names.adopt(std::move(part.names));
}

void appendLocs(Module& into, Module& part, const PartBase& base) {
  for (LocRecord& r : part.locs) {
    r.function = shifted(r.function, base.function);
    r.instruction = shifted(r.instruction, base.instruction);
    r.inlining = shifted(r.inlining, base.locInlining);
    into.locs.push_back(r);
  }
  for (LocInlining& i : part.locInlinings) {
    i.functionName = shifted(i.functionName, base.locFunctionName);
    into.locInlinings.push_back(i);
  }
  // Names are interned per part; a name two parts share is listed twice,
  // which changes no record's meaning.
  std::move(part.locFunctionNames.begin(), part.locFunctionNames.end(), std::back_inserter(into.locFunctionNames));
}

void appendCode(Module& into, Module& part, const PartBase& base) {
  into.instructions.append(part.instructions);
  for (Block& b : part.blocks) {
    b.function = shifted(b.function, base.function);
    b.parent = shifted(b.parent, base.block);
    b.firstInstruction += base.instruction;
    b.endInstruction += base.instruction;
    into.blocks.push_back(b);
  }
}

void appendFunctions(Module& into, Module& part, const PartBase& base) {
  for (Function& f : part.functions) {
    f.firstLabel += base.label;
    f.endLabel += base.label;
    f.firstReturn += base.parameter;
    f.firstParam += base.parameter;
    f.endParam += base.parameter;
    f.firstRegister += base.reg;
    f.endRegister += base.reg;
    f.firstInstruction += base.instruction;
    f.endInstruction += base.instruction;
    into.functions.push_back(std::move(f));
  }
}

void appendVariables(Module& into, Module& part, const PartBase& base) {
  for (Variable& v : part.variables) {
    v.function = shifted(v.function, base.function);
    v.block = shifted(v.block, base.block);
    v.firstDim += base.dim;
    v.endDim += base.dim;
    into.variables.push_back(std::move(v));
  }
}

// Parameters are where their functions say (appendFunctions); registers
// name their blocks.
void appendDeclarations(Module& into, Module& part, const PartBase& base) {
  for (Variable& p : part.parameters) {
    p.firstDim += base.dim;
    p.endDim += base.dim;
    into.parameters.push_back(p);
  }
  into.dims.insert(into.dims.end(), part.dims.begin(), part.dims.end());
  for (RegisterDecl& r : part.registers) {
    r.block = shifted(r.block, base.block);
    into.registers.push_back(r);
  }
}

void appendLabels(Module& into, Module& part, const PartBase& base) {
  for (Label& l : part.labels) {
    l.instruction = shifted(l.instruction, base.instruction);
    into.labels.push_back(std::move(l));
  }
}

// Appends `parts`, read in this order from the text after `into`'s, to
// `into`: what one reader would have built from all of it. Each kind of item
// is one task over all the parts (each writes only its own vectors), so that
// several threads share the copying: megabytes, into pages faulted in as it goes.
void appendParts(Module& into, std::span<Module> parts, std::span<const Chunk> partChunks, unsigned threads) {
  const std::vector<PartBase> bases = partBases(into, parts);
  using Append = void (*)(Module&, Module&, const PartBase&);
  static constexpr Append kAppends[] = {appendLocs,      appendCode,   appendFunctions,
                                        appendVariables, appendLabels, appendDeclarations};
  runTasks(std::size(kAppends) + 1, threads, [&](size_t task) {
    for (size_t i = 0; i < parts.size(); ++i) {
      if (task == std::size(kAppends)) appendModuleScope(into, parts[i], partChunks[i]);
      else kAppends[task](into, parts[i], bases[i]);
    }
  });
}

// The vectors were reserved for the most the text could hold (reserve.h).
void releaseUnusedTails(Module& m) {
  m.instructions.releaseUnusedTails();
  m.names.releaseUnusedTail();
  releaseUnusedTail(m.labels);
  releaseUnusedTail(m.locs);
  releaseUnusedTail(m.variables);
  releaseUnusedTail(m.functions);
  releaseUnusedTail(m.blocks);
  releaseUnusedTail(m.parameters);
  releaseUnusedTail(m.registers);
  for (SectionImage& s : m.sections) s.releaseUnusedTails();
}

void readOnOneThread(std::string_view text, std::string_view filename, const ReadOptions& options,
                     ReadResult& result) {
  Reader reader(text, filename, options);
  reader.run();
  result.diagnostics = std::move(reader.diagnostics());
  result.module = reader.take();
}

// The joined module's vectors, sized once for every part (appending part
// after part would grow them by doubling, to up to twice what they hold),
// and the pages the parts will fill mapped in with one call each.
void reserveForJoin(std::span<const Module> parts, Module& into) {
  size_t functions = into.functions.size(), variables = into.variables.size();
  size_t labels = into.labels.size(), locs = into.locs.size(), instructions = into.instructions.size();
  size_t blocks = into.blocks.size(), parameters = into.parameters.size(), registers = into.registers.size();
  for (const Module& part : parts) {
    functions += part.functions.size();
    parameters += part.parameters.size();
    registers += part.registers.size();
    blocks += part.blocks.size();
    variables += part.variables.size();
    labels += part.labels.size();
    locs += part.locs.size();
    instructions += part.instructions.size();
  }
  into.instructions.reserve(instructions);
  reserveExactly(into.functions, functions);
  reserveExactly(into.variables, variables);
  reserveExactly(into.labels, labels);
  reserveExactly(into.locs, locs);
  reserveExactly(into.blocks, blocks);
  reserveExactly(into.parameters, parameters);
  reserveExactly(into.registers, registers);
}

// Reads the chunks on up to `threads` threads and joins them. False when
// they do not join into what one reader would have read.
bool readInChunks(std::string_view text, std::string_view filename, const ReadOptions& options,
                  const std::vector<Chunk>& chunks, unsigned threads, ReadResult& result) {
  // Made here, not on the threads: a reader reserves its vectors as it is
  // made, and a reservation of megabytes is a new mapping, which takes the
  // address-space lock for writing while the other part's reader maps its
  // pages in (a thread that sleeps for the lock takes milliseconds to wake
  // on a virtual machine).
  std::vector<std::unique_ptr<Reader>> readers(chunks.size());
  for (size_t i = 0; i < chunks.size(); ++i) readers[i] = std::make_unique<Reader>(text, filename, options, chunks[i]);
  runTasks(chunks.size(), threads, [&](size_t i) {
    readers[i]->run();
  });

  // The parts up to the first that failed: one reader would have stopped there too.
  size_t joined = 1;
  for (; joined < chunks.size() && !readers[joined - 1]->failed(); ++joined) {
    const Chunk& c = chunks[joined - 1];
    if (readers[joined - 1]->offset() != c.stop) return false;  // the cut was not a statement boundary
    if (c.stopsInSection && readers[joined - 1]->leftOpen() != chunks[joined].continues) return false;
  }
  // A cut inside a section joins only when every part read without an error:
  // an error near it may read differently from either side (an operand list
  // that goes on past the cut), so the text is read again on one thread.
  const bool cutInSection = std::any_of(chunks.begin(), chunks.end(), [](const Chunk& c) { return c.stopsInSection; });
  if (cutInSection && (joined < chunks.size() || readers.back()->failed())) return false;
  result.module = readers[0]->take();
  std::vector<Module> parts;
  parts.reserve(joined - 1);
  for (size_t i = 1; i < joined; ++i) parts.push_back(readers[i]->take());
  const std::span<const Chunk> partChunks = std::span(chunks).subspan(1, joined - 1);
  if (!sectionsJoin(result.module, parts, partChunks)) return false;
  reserveForJoin(parts, result.module);
  appendParts(result.module, parts, partChunks, threads);
  result.diagnostics = std::move(readers[0]->diagnostics());
  for (size_t i = 1; i < joined; ++i) {
    auto& items = readers[i]->diagnostics().items;
    std::move(items.begin(), items.end(), std::back_inserter(result.diagnostics.items));
  }
  result.parts = static_cast<unsigned>(joined);
  return true;
}

}  // namespace

ReadResult read(std::string_view text, std::string_view filename, const ReadOptions& options) {
  ReadResult result;
  if (text.size() > UINT32_MAX) {
    result.diagnostics.error({1, 1}, "file is larger than 4 GiB; PTX this large is not supported");
    return result;
  }
  // A chunk a thread. The first part becomes the module and the others are
  // copied onto its end: more chunks than threads would balance the threads
  // better, but copy more (twice as many chunks on two threads copied three
  // quarters of a 20 MB nvcc -G file's model instead of a half: 1,300 more
  // page faults and 10-20 ms more CPU, for no wall time).
  const unsigned threads = threadCount(options.threads);
  const TextScan scan = scanText(text, threads, options.minChunk, threads);
  if (scan.firstNul != std::string_view::npos) {
    reportNulByte(text, scan.firstNul, result.diagnostics);
    return result;
  }
  std::vector<Chunk> chunks = chunksOf(text, threads, options.minChunk, scan);
  numberFirstLines(text, scan, chunks);
  if (rejectBomOrCrLines(text, result.diagnostics)) return result;
  if (chunks.size() == 1 || !readInChunks(text, filename, options, chunks, threads, result)) {
    result = {};
    readOnOneThread(text, filename, options, result);
  }
  if (!options.keepAllSections) {
    std::erase_if(result.module.sections,
                  [](const SectionImage& s) { return !s.name.starts_with(".debug"); });
  }
  releaseUnusedTails(result.module);
  if (options.index) result.module.reindex();
  return result;
}

}  // namespace ptxdwarf::ptx
