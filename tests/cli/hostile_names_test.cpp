// Names that try to forge output: a DWARF name (DW_AT_name, a linkage name, a
// type or member name, DW_AT_comp_dir, an inlined function's name in
// .debug_str) holding every control byte, DEL, a C1 control and an escape
// sequence, with a line that looks like `check`'s summary after a newline.
// Every text output of every command must print the same lines for it as for
// a harmless name (a name can lengthen a line, never add one), no raw control
// byte but the tool's own tabs, never the forged line; every JSON output stays
// valid JSON.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/program.h"
#include "tools.h"

using namespace ptxdwarf::testsupport;

namespace {

const std::string kForged = "hostile.ptx: 0 errors, 0 warnings";

// Every byte a terminal or a line-oriented reader could act on: 0x01-0x1f,
// DEL, U+009B (CSI) in UTF-8, and a hiding escape sequence after a forged line.
std::string hostileName() {
  std::string s = "n";
  for (int c = 1; c < 0x20; ++c) s += static_cast<char>(c);
  s += '\x7f';
  s += "\xc2\x9b";
  s += "\n" + kForged + "\n\x1b[8m\r\"q\\";
  return s;
}

// A name of another spelling, with no byte to fear.
std::string harmlessName(char fill) { return std::string(12, fill); }

// A kernel described with `name` in every string the DWARF and the line
// table's inlined-function names hold.
std::string namedModule(const std::string& name) {
  using namespace ptxdwarf;
  using namespace ptxdwarf::write;
  Program p({.version = {7, 5, true}, .target = "sm_80"});
  unsigned file = p.files().add("k.cu");  // relative: DW_AT_comp_dir (the name) comes before it
  const std::vector<InlinedCall> inlined{{name, {file, 3, 5}}};
  p.code() += ".visible .entry _Z1kPi(\n\t.param .u64 _Z1kPi_param_0)\n{\n\t.reg .b32 %r<3>;\n";
  Labels::Function fn = p.beginFunction();
  p.loc({file, 2, 1});
  p.code() += "\tmov.u32 %r1, 1;\n";
  std::string inlineBegin = p.label();
  p.loc({file, 9, 2}, inlined);
  p.code() += "\tadd.u32 %r2, %r1, 1;\n";
  std::string inlineEnd = p.label();
  p.loc({file, 4, 1});
  p.code() += "\tret;\n";
  p.endFunction();
  p.code() += "}\n";
  // A function whose subprogram's linkage name is the name: check's
  // linkage-name warning quotes it.
  p.code() += ".visible .func _Z1gv()\n{\n";
  Labels::Function g = p.beginFunction();
  p.loc({file, 12, 1});
  p.code() += "\tret;\n";
  p.endFunction();
  p.code() += "}\n";

  Builder b;
  b.compileUnit({.producer = name, .name = name, .compDir = "/src/" + name});
  DieId intT = b.baseType(name, dw::DW_ATE_signed, 4);
  DieId aggregate = b.aggregate(dw::DW_TAG_structure_type, name, 8);
  b.member(aggregate, {.name = name, .type = intT, .offset = 0, .declFile = file, .declLine = 1});
  b.member(aggregate, {.name = "second", .type = intT, .offset = 4, .declFile = file, .declLine = 1});
  DieId named = b.typedefType(name, aggregate);
  DieId enumeration = b.enumeration(name, 4);
  b.enumerator(enumeration, name, 7);
  DieId callee = b.subprogram({.name = name, .linkageName = name, .declFile = file, .declLine = 8, .external = false});
  DieId kernel = b.subprogram({.name = name,
                               .linkageName = "_Z1kPi",
                               .declFile = file,
                               .declLine = 1,
                               .lowPc = SymbolRef{fn.begin},
                               .highPc = SymbolRef{fn.end}});
  b.formalParameter(kernel, {.name = name,
                             .declFile = file,
                             .declLine = 1,
                             .type = b.pointerType(named),
                             .location = Location::symbol({"_Z1kPi_param_0"}, ptx::StateSpace::param)});
  b.variable(kernel, {.name = name, .declFile = file, .declLine = 2, .type = intT, .location = Location::reg("%r1")});
  b.inlinedSubroutine(kernel, callee, {inlineBegin}, {inlineEnd}, file, 3);
  b.subprogram({.name = name,
                .linkageName = name,
                .declFile = file,
                .declLine = 11,
                .lowPc = SymbolRef{g.begin},
                .highPc = SymbolRef{g.end}});
  Assembled a = p.assemble(&b.unit());
  EXPECT_TRUE(a.written());
  return a.ptx;
}

struct TempFile {
  std::string path;
  TempFile(const std::string& tag, const std::string& text)
      : path((std::filesystem::temp_directory_path() / ("ptxdump_names_" + std::to_string(getpid()) + "_" + tag + ".ptx"))
                 .string()) {
    EXPECT_TRUE(writeFile(path, text)) << path;
  }
  ~TempFile() { std::filesystem::remove(path); }
};

size_t lineCount(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

// A raw byte the tool never prints of its own: a control byte other than its
// tab and newline, DEL, or a byte past ASCII (every output here is ASCII).
std::string rawControlBytes(const std::string& s) {
  std::string found;
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\t' && c != '\n') || c >= 0x7f) ptxdwarf::appendEscaped(found, std::string(1, char(c)));
  return found;
}

bool hasForgedLine(const std::string& s) {
  size_t at = 0;
  while ((at = s.find(kForged, at)) != std::string::npos) {
    if (at == 0 || s[at - 1] == '\n' || s[at - 1] == '\r') return true;
    ++at;
  }
  return false;
}

// A strict JSON reader that only says whether `s` is one valid JSON value
// (whitespace around it allowed): raw control bytes inside strings, bad
// escapes, trailing commas are all invalid.
class JsonValidator {
 public:
  explicit JsonValidator(const std::string& s) : s_(s) {}
  bool valid() {
    skip();
    if (!value()) return false;
    skip();
    return i_ == s_.size();
  }

 private:
  bool value() {
    if (i_ >= s_.size()) return false;
    switch (s_[i_]) {
      case '{': return object();
      case '[': return array();
      case '"': return string();
      case 't': return word("true");
      case 'f': return word("false");
      case 'n': return word("null");
      default: return number();
    }
  }
  bool object() {
    ++i_;
    skip();
    if (peek('}')) return ++i_, true;
    for (;;) {
      skip();
      if (!peek('"') || !string()) return false;
      skip();
      if (!peek(':')) return false;
      ++i_;
      skip();
      if (!value()) return false;
      skip();
      if (peek('}')) return ++i_, true;
      if (!peek(',')) return false;
      ++i_;
    }
  }
  bool array() {
    ++i_;
    skip();
    if (peek(']')) return ++i_, true;
    for (;;) {
      skip();
      if (!value()) return false;
      skip();
      if (peek(']')) return ++i_, true;
      if (!peek(',')) return false;
      ++i_;
    }
  }
  bool string() {
    ++i_;
    while (i_ < s_.size()) {
      unsigned char c = static_cast<unsigned char>(s_[i_++]);
      if (c == '"') return true;
      if (c < 0x20) return false;
      if (c != '\\') continue;
      if (i_ >= s_.size()) return false;
      char e = s_[i_++];
      if (e == 'u') {
        for (int k = 0; k < 4; ++k)
          if (i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_++]))) return false;
      } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
        return false;
      }
    }
    return false;
  }
  bool number() {
    size_t start = i_;
    if (peek('-')) ++i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' || s_[i_] == 'e' ||
                              s_[i_] == 'E' || s_[i_] == '+' || s_[i_] == '-'))
      ++i_;
    return i_ > start;
  }
  bool word(std::string_view w) {
    if (s_.compare(i_, w.size(), w) != 0) return false;
    i_ += w.size();
    return true;
  }
  bool peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  const std::string& s_;
  size_t i_ = 0;
};

bool validJson(const std::string& s) { return JsonValidator(s).valid(); }
bool validJsonLines(const std::string& s) {
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    if (!validJson(s.substr(start, end - start))) return false;
    start = end + 1;
  }
  return true;
}

enum class Output { text, json, jsonLines };

struct Invocation {
  std::vector<std::string> args;  // FILE stands for the module's path, OTHER for a second module's
  Output output = Output::text;
};

// Every command's every output on the module, with the names as text, JSON and JSON lines.
std::vector<Invocation> everyOutput() {
  return {
      {{"dump", "FILE"}},
      {{"dump", "--all", "FILE"}},
      {{"dump", "--debug-line", "FILE"}},
      {{"dump", "--debug-info", "--show-form", "FILE"}},
      {{"dump", "--all", "--format", "json", "FILE"}, Output::json},
      {{"dump", "--all", "--format", "json-lines", "FILE"}, Output::jsonLines},
      {{"dump", "--statistics", "FILE"}, Output::json},
      {{"lookup", "FILE", "--at", "k.cu:2"}},
      {{"lookup", "FILE", "--at", "k.cu:9"}},
      {{"lookup", "FILE", "--at", "_Z1kPi"}},
      {{"lookup", "FILE", "--at", "k.cu:9", "--format", "json"}, Output::json},
      {{"types", "FILE"}},
      {{"types", "FILE", "--format", "json"}, Output::json},
      {{"check", "FILE"}},
      {{"check", "--werror", "FILE", "OTHER"}},
      {{"diff", "FILE", "OTHER"}},
      {{"diff", "OTHER", "FILE"}},
      {{"extract", "FILE", "--section", ".debug_info", "--relocs"}},
  };
}

struct Outcome {
  CommandResult result;
  std::string command;
};

Outcome run(const Invocation& inv, const std::string& file, const std::string& other) {
  std::vector<std::string> args = {PTXDUMP_EXE};
  std::string command;
  for (const std::string& a : inv.args) {
    args.push_back(a == "FILE" ? file : a == "OTHER" ? other : a);
    command += a + " ";
  }
  return {runCommand(args), command};
}

TEST(HostileNames, NoOutputPrintsALineTheToolDidNotMean) {
  TempFile hostile("hostile", namedModule(hostileName()));
  TempFile harmless("harmless", namedModule(harmlessName('a')));
  TempFile other("other", namedModule(harmlessName('b')));
  for (const Invocation& inv : everyOutput()) {
    Outcome bad = run(inv, hostile.path, other.path);
    Outcome good = run(inv, harmless.path, other.path);
    SCOPED_TRACE(bad.command);
    EXPECT_EQ(bad.result.exitCode, good.result.exitCode) << bad.result.err;
    for (auto [b, g] : {std::pair{&bad.result.out, &good.result.out}, std::pair{&bad.result.err, &good.result.err}}) {
      EXPECT_EQ(lineCount(*b), lineCount(*g)) << *b;
      EXPECT_EQ(rawControlBytes(*b), "") << *b;
      EXPECT_FALSE(hasForgedLine(*b)) << *b;
    }
    if (inv.output == Output::json) {
      EXPECT_TRUE(validJson(bad.result.out)) << bad.result.out;
    } else if (inv.output == Output::jsonLines) {
      EXPECT_TRUE(validJsonLines(bad.result.out)) << bad.result.out;
    }
  }
}

// The names are in the outputs, spelled as dump spells strings, not dropped.
TEST(HostileNames, NamesAreEscapedAsDumpEscapesThem) {
  const std::string name = hostileName();
  TempFile hostile("escaped", namedModule(name));
  const std::string spelled = ptxdwarf::escaped(name);
  for (std::vector<std::string> args : {std::vector<std::string>{"lookup", hostile.path, "--at", "k.cu:2"},
                                        std::vector<std::string>{"types", hostile.path},
                                        std::vector<std::string>{"dump", hostile.path}}) {
    args.insert(args.begin(), PTXDUMP_EXE);
    CommandResult r = runCommand(args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find(spelled), std::string::npos) << args[1] << ":\n" << r.out;
  }  // check quotes the name in a diagnostic (the callee's linkage name names no
  // PTX function): its unprintable bytes escaped, its quote as written.
  CommandResult check = runCommand({PTXDUMP_EXE, "check", hostile.path});
  std::string quoted;
  ptxdwarf::appendUnprintableEscaped(quoted, "'" + name + "'");
  EXPECT_NE(check.err.find(quoted), std::string::npos) << check.err;
  EXPECT_NE(check.out.find(hostile.path + ": 0 errors, 1 warning\n"), std::string::npos) << check.out;
}

// The one escaping function: what it makes of each byte.
TEST(HostileNames, EscapingSpellsEveryByte) {
  EXPECT_EQ(ptxdwarf::escaped("a\tb\nc\"d\\e"), "a\\tb\\nc\\\"d\\\\e");
  EXPECT_EQ(ptxdwarf::escaped("\x1b[8m\r\x7f\xc2\x9b"), "\\033[8m\\015\\177\\302\\233");
  std::string kept;
  ptxdwarf::appendUnprintableEscaped(kept, "'a\"b\\c'\n\x1b");
  EXPECT_EQ(kept, "'a\"b\\c'\\n\\033");
  std::string json;
  ptxdwarf::appendJsonString(json, std::string("\x01\n\x7f\xc8", 4));
  EXPECT_EQ(json, "\"\\u0001\\n\\u007f\\u00c8\"");
  for (int c = 0; c < 256; ++c) {
    std::string one = ptxdwarf::escaped(std::string(1, static_cast<char>(c)));
    EXPECT_EQ(rawControlBytes(one), "") << c;
  }
}

// annotate writes the source name into `.file 1 "..."`: a name that a PTX
// string cannot hold as it is would forge PTX lines, and is refused.
TEST(HostileNames, AnnotateRefusesASourceNameAPtxStringCannotHold) {
  const std::string input = std::string(PTXDWARF_FIXTURES) + "/annotate/dsl.ptx";
  for (const std::string& name : {hostileName(), std::string("a\nb"), std::string("a\\"), std::string("a\"b")}) {
    CommandResult r = runCommand({PTXDUMP_EXE, "annotate", input, "--source-name", name});
    EXPECT_EQ(r.exitCode, 1) << r.out;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(lineCount(r.err), 1u) << r.err;
    EXPECT_EQ(rawControlBytes(r.err), "") << r.err;
    EXPECT_NE(r.err.find("cannot be written in a PTX .file string"), std::string::npos) << r.err;
  }
}

}  // namespace
