// The printing layer (ptxdwarf/print/) called from C++, as a producer's test
// or a binding calls it: no ptxdump in between.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/leb128.h"
#include "ptxdwarf/print/dump.h"
#include "ptxdwarf/print/json.h"
#include "ptxdwarf/print/line.h"
#include "ptxdwarf/print/render.h"
#include "ptxdwarf/print/views.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/lookup.h"
#include "ptxdwarf/view/statistics.h"
#include "ptxdwarf/view/types.h"
#include "corpus.h"

namespace {

using namespace ptxdwarf;

struct Loaded {
  ptx::ReadResult read;
  read::Dwarf dwarf;
};

std::unique_ptr<Loaded> chapter6() {
  auto l = std::make_unique<Loaded>();
  l->read = ptx::read(testsupport::readFixture("chapter6.ptx"), "chapter6.ptx");
  l->read.module.reindex();
  l->dwarf = read::decode(l->read.module.sections);
  return l;
}

size_t count(std::string_view text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The DIE lines of a text dump: "0x0000000b:   DW_TAG_...", indented by depth.
size_t dieLines(std::string_view text, std::string_view what = "DW_TAG_") {
  size_t n = 0;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    if (line.starts_with("0x") && line.size() > 11 && line[10] == ':') {
      const size_t first = line.find_first_not_of(' ', 11);
      if (first != std::string_view::npos && line.substr(first).starts_with(what)) ++n;
    }
    begin = end + 1;
  }
  return n;
}

// A strict check of JSON syntax (RFC 8259 values; no duplicate-key check):
// true when `s` is exactly one value, whitespace around it allowed.
class JsonSyntax {
 public:
  explicit JsonSyntax(std::string_view s) : s_(s) {}
  bool valid() {
    skip();
    if (!value()) return false;
    skip();
    return i_ == s_.size();
  }

 private:
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  bool string() {
    if (!eat('"')) return false;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (static_cast<unsigned char>(s_[i_]) < 0x20) return false;
      i_ += s_[i_] == '\\' ? 2 : 1;
    }
    return eat('"');
  }
  bool value() {
    skip();
    if (i_ >= s_.size()) return false;
    const char c = s_[i_];
    if (c == '"') return string();
    if (c == '{') return members('}', true);
    if (c == '[') return members(']', false);
    for (std::string_view word : {"true", "false", "null"})
      if (s_.substr(i_, word.size()) == word) return i_ += word.size(), true;
    const size_t start = i_;
    if (s_[i_] == '-') ++i_;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    return i_ > start && s_[i_ - 1] != '-';
  }
  bool members(char close, bool object) {
    ++i_;
    if (eat(close)) return true;
    do {
      if (object && (!string() || !eat(':'))) return false;
      if (!value()) return false;
    } while (eat(','));
    return eat(close);
  }
  std::string_view s_;
  size_t i_ = 0;
};

TEST(Print, TextDumpOfChapter6IsLlvmDwarfdumpsLayout) {
  auto l = chapter6();
  ASSERT_TRUE(l->read.ok());
  std::string out;
  print::dumpText(l->read.module, l->dwarf, {}, out);
  EXPECT_TRUE(out.starts_with(
      "chapter6.ptx:\tfile format ptx\n\n.debug_info contents:\n"
      "0x00000000: Compile Unit: length = 0x00000106, format = DWARF32, version = 0x0002, abbr_offset = 0x0000, "
      "addr_size = 0x08 (next unit at 0x0000010a)\n\n0x0000000b: DW_TAG_compile_unit\n"))
      << out.substr(0, 400);
  EXPECT_NE(out.find("0x00000077:     DW_TAG_formal_parameter\n"
                     "                  DW_AT_name\t(\"i\")\n"
                     "                  DW_AT_decl_file\t(\"/home/mmurphy/test/call_example.cu\")\n"
                     "                  DW_AT_decl_line\t(1)\n"
                     "                  DW_AT_type\t(0x000000a4 \"int\")\n"
                     "                  DW_AT_location\t(DW_OP_regx %r1)\n"),
            std::string::npos);
  EXPECT_EQ(dieLines(out), 9u);
  EXPECT_EQ(dieLines(out, "NULL"), 3u);
}

TEST(Print, SinkReceivesTheWholeDumpInChunks) {
  auto l = chapter6();
  print::DumpOptions all{true, true, true, true, true, true, true};
  std::string whole;
  print::dumpText(l->read.module, l->dwarf, all, whole);
  std::string streamed, buffer;
  size_t calls = 0;
  print::dumpText(l->read.module, l->dwarf, all, buffer, [&](std::string_view s) {
    streamed += s;
    ++calls;
  });
  EXPECT_TRUE(buffer.empty());
  EXPECT_GE(calls, 1u);
  EXPECT_EQ(streamed, whole);
  EXPECT_NE(whole.find(".debug_line contents:"), std::string::npos);
}

TEST(Print, JsonDumpIsValidAndHasEveryDie) {
  auto l = chapter6();
  print::DumpOptions all{true, true, true, true, true, true, true};
  std::string text, json, lines;
  print::dumpText(l->read.module, l->dwarf, all, text);
  print::dumpJson(l->read.module, l->dwarf, all, json);
  print::dumpJson(l->read.module, l->dwarf, all, lines, {}, true);
  EXPECT_TRUE(JsonSyntax(json).valid()) << json.substr(0, 400);
  EXPECT_TRUE(json.starts_with("{\"file\":\"chapter6.ptx\",\"abbrev\":[{\"offset\":0,\"abbrevs\":[{\"code\":1,"));
  // A DIE object per DIE of the text dump, 9 (NULL entries are not listed).
  EXPECT_EQ(dieLines(text), 9u);
  EXPECT_EQ(count(json, "{\"offset\":11,\"code\":1,\"tag\":\"DW_TAG_compile_unit\""), 1u);
  EXPECT_EQ(count(json, ",\"code\":"), 9u);  // abbreviations start {"code":, DIEs {"offset":..,"code":
  size_t lineCount = 0;
  for (size_t begin = 0, end; begin < lines.size(); begin = end + 1) {
    end = lines.find('\n', begin);
    ASSERT_NE(end, std::string::npos) << "JSON lines end with a newline";
    EXPECT_TRUE(JsonSyntax(std::string_view(lines).substr(begin, end - begin)).valid()) << lineCount;
    ++lineCount;
  }
  EXPECT_EQ(count(lines, "\"tag\":\"DW_TAG_"), 9 + count(json, "{\"code\":"));  // the DIEs and the abbreviations
}

TEST(Print, ViewsPrintWhatTheViewsCompute) {
  auto l = chapter6();
  const view::LookupResult r = view::lookup(l->read.module, l->dwarf, "call_example.cu:1");
  std::string text, json;
  print::lookupText("chapter6.ptx", "call_example.cu:1", r, text);
  print::lookupJson("chapter6.ptx", "call_example.cu:1", r, json);
  EXPECT_EQ(text,
            "chapter6.ptx: call_example.cu:1 in _Z3fooi, PTX line 16\n"
            "  scopes (innermost first):\n"
            "    DW_TAG_subprogram '_Z3fooii' (0x00000045)\n"
            "  visible:\n"
            "    parameter int i: %r1 (ADDR_reg_space) (0x00000077)\n"
            "    parameter int j: %r2 (ADDR_reg_space) (0x0000008d)\n");
  EXPECT_TRUE(JsonSyntax(json).valid());
  EXPECT_NE(json.find("{\"name\":\"j\",\"kind\":\"parameter\",\"type\":\"int\",\"location\":\"%r2\",\"available\":true,"
                      "\"address_class\":\"ADDR_reg_space\",\"decl_line\":1,\"die\":141}"),
            std::string::npos);

  std::string stats;
  print::statisticsJson("chapter6.ptx", view::computeStatistics(l->read.module, l->dwarf), stats);
  EXPECT_TRUE(stats.starts_with("{\n  \"version\": 9,\n  \"file\": \"chapter6.ptx\",\n  \"format\": \"ptx\",\n"
                                "  \"#functions\": 2,\n"));
  EXPECT_TRUE(stats.ends_with("\n}\n"));
  EXPECT_TRUE(JsonSyntax(stats).valid());

  std::vector<view::TypeLayout> layouts = view::typeLayouts(l->dwarf);
  std::string types;
  print::typesJson("chapter6.ptx", layouts, types);
  EXPECT_TRUE(JsonSyntax(types).valid());
  EXPECT_EQ(types, "{\"file\":\"chapter6.ptx\",\"types\":[\n{\"name\":\"int *\",\"kind\":\"pointer\",\"size\":8,\"die\":" +
                       std::to_string(layouts.at(0).die) +
                       ",\"target\":\"int\",\"address_class\":12,\"address_class_name\":\"ADDR_generic_space\"}]}\n");
  std::vector<view::TypeLayout> named = layouts;
  view::keepTypesNamed(named, l->dwarf, {"int *"});
  EXPECT_EQ(named.size(), 1u);
  view::keepTypesNamed(named, l->dwarf, {"float"});
  EXPECT_TRUE(named.empty());
}

TEST(Print, JsonWriterSeparatesAndEscapes) {
  std::string out;
  print::JsonWriter w(out);
  w.objectBegin();
  w.field("a", uint64_t{1});
  w.key("list");
  w.arrayBegin();
  w.signedValue(-2);
  w.value("q\"\n");
  w.null();
  w.objectBegin();
  w.objectEnd();
  w.arrayEnd();
  w.objectEnd();
  EXPECT_EQ(out, "{\"a\":1,\"list\":[-2,\"q\\\"\\n\",null,{}]}");

  std::string pretty;
  print::JsonWriter p(pretty, 2);
  p.objectBegin();
  p.field("x", uint64_t{3});
  p.field("y", "z");
  p.objectEnd();
  EXPECT_EQ(pretty, "{\n  \"x\": 3,\n  \"y\": \"z\"\n}");
}

TEST(Print, RendererSpellsAnAttributeValueAsTheDumpDoes) {
  auto l = chapter6();
  print::Renderer r(l->read.module, l->dwarf);
  const read::Die* die = l->dwarf.dieAt(0x77);
  ASSERT_NE(die, nullptr);
  std::string spelled;
  for (const read::AttrValue& v : l->dwarf.attributes(*die)) {
    if (v.name != dw::DW_AT_location) continue;
    r.attributeValue(spelled, *die, v, 0);
  }
  EXPECT_EQ(spelled, "DW_OP_regx %r1");
}

// One expression, spelled as the dump spells it and as the verbose PTX
// writer's comments do: signed operands with and without their sign, a base
// register by name or as encoded, and where decoding stops.
TEST(Print, RendererSpellsAnExpressionAsTheDumpAndAsTheVerboseComments) {
  auto l = chapter6();
  const print::Renderer r(l->read.module, l->dwarf);
  std::vector<uint8_t> bytes;
  auto put = [&](uint8_t b) { bytes.push_back(b); };
  put(dw::DW_OP_bregx);
  encodeUleb(*cuda::packRegister("%r1"), put);
  encodeSleb(8, put);
  put(dw::DW_OP_consts);
  encodeSleb(-3, put);
  put(dw::DW_OP_regx);
  encodeUleb(*cuda::packRegister("%r2"), put);
  std::string dump, comment;
  r.expression(dump, bytes, nullptr, 0, 8);
  print::Renderer::encodedExpression(comment, bytes, nullptr, 0, 8);
  EXPECT_EQ(dump, "DW_OP_bregx %r1 +8, DW_OP_consts -3, DW_OP_regx %r2");
  EXPECT_EQ(comment, "DW_OP_bregx 0x257231 8 DW_OP_consts -3 DW_OP_regx %r2");

  put(dw::DW_OP_const4u);  // its operand missing
  put(0x01);
  dump.clear(), comment.clear();
  r.expression(dump, bytes, nullptr, 0, 8);
  print::Renderer::encodedExpression(comment, bytes, nullptr, 0, 8);
  EXPECT_EQ(dump, "DW_OP_bregx %r1 +8, DW_OP_consts -3, DW_OP_regx %r2, <decoding error> 0c 01");
  EXPECT_EQ(comment, "DW_OP_bregx 0x257231 8 DW_OP_consts -3 DW_OP_regx %r2 <undecodable>");
}

// The diff's spelling: plain values, their symbols through the hook.
TEST(Print, SymbolSpellerSpellsTheSymbolsOfExpressionsAndPlainValues) {
  auto l = chapter6();
  print::Renderer r(l->read.module, l->dwarf);
  r.spellSymbolsWith([](std::string& out, const Relocation& reloc) {
    out += '<';
    out += reloc.symbol;
    out += '>';
  });
  const read::Die* die = l->dwarf.dieAt(0xe2);
  ASSERT_NE(die, nullptr);
  std::vector<std::string> dump, plain;
  for (const read::AttrValue& v : l->dwarf.attributes(*die)) {
    r.attributeValue(dump.emplace_back(), *die, v, 0);
    r.plainValue(plain.emplace_back(), *die, v);
  }
  EXPECT_EQ(dump, (std::vector<std::string>{"\"p\"", "\"/home/mmurphy/test/call_example.cu\"", "6",
                                            "0x00000103 \"int *\"", "DW_OP_addr <_Z4testPi_param_0>",
                                            "0x07 ADDR_param_space"}));
  EXPECT_EQ(plain, (std::vector<std::string>{"\"p\"", "\"/home/mmurphy/test/call_example.cu\"", "6",
                                             "0x00000103", "DW_OP_addr <_Z4testPi_param_0>",
                                             "ADDR_param_space (7)"}));
}

}  // namespace
