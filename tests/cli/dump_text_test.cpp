// ptxdump's text and JSON printers (libptxdwarf/src/print/text.cpp, json.cpp).
//
// The golden file tests/golden/chapter6.dump.txt is the whole text dump (every
// section) of fixtures/chapter6.ptx, read with the file name "chapter6.ptx".
// Regenerate it with
//   PTXDWARF_REGENERATE_GOLDEN=1 ./ptxdump_cli_tests --gtest_filter='DumpText.Chapter6*'
// (the test then writes the file it compares against; review the diff before
// committing). The ptxdump CLI's dump of fixtures/chapter6.ptx with every
// section selected, run from fixtures/ so the first line names "chapter6.ptx",
// prints the same text. It was checked line by line
// against `llvm-dwarfdump` 14 on the cubin `ptxas -arch=sm_75 -g` makes of
// fixtures/variants/one_per_line.ptx (same bytes): identical except the
// documented extensions (relocated values printed symbolically, ADDR_* names,
// %r registers). tools/compare_llvm_dwarfdump.py makes that comparison
// for any PTX file.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/print/dump.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace {

std::string readText(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

ptxdwarf::print::DumpOptions allSections() {
  ptxdwarf::print::DumpOptions o;
  o.info = o.abbrev = o.pubnames = o.aranges = o.loc = o.str = true;
  return o;
}

struct Dumped {
  ptxdwarf::ptx::ReadResult read;
  ptxdwarf::read::Dwarf dwarf;
};

// The Dwarf keeps pointers into the module's sections: keep both together.
std::unique_ptr<Dumped> load(std::string_view text, std::string_view name) {
  auto d = std::make_unique<Dumped>();
  d->read = ptxdwarf::ptx::read(text, name);
  d->dwarf = ptxdwarf::read::decode(d->read.module.sections);
  return d;
}

// A sink writing to `f`, as ptxdump's stream to stdout does.
ptxdwarf::print::Sink toFile(std::FILE* f) {
  return [f](std::string_view s) { std::fwrite(s.data(), 1, s.size(), f); };
}

std::string text(const Dumped& d, const ptxdwarf::print::DumpOptions& o = allSections()) {
  std::string out;
  ptxdwarf::print::dumpText(d.read.module, d.dwarf, o, out);
  return out;
}

std::string json(const Dumped& d, const ptxdwarf::print::DumpOptions& o = allSections()) {
  std::string out;
  ptxdwarf::print::dumpJson(d.read.module, d.dwarf, o, out);
  return out;
}

// ---------------------------------------------------------------------------
// A minimal JSON reader for the tests: validates RFC 8259 syntax and builds a tree.
struct Json {
  enum Kind { null, boolean, number, string, array, object } kind = null;
  std::string str;  // string value, or the number's text
  bool b = false;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;

  const Json& operator[](std::string_view k) const {
    static const Json missing;
    for (const auto& m : members)
      if (m.first == k) return m.second;
    return missing;
  }
  const Json& operator[](size_t i) const { return items.at(i); }
  bool has(std::string_view k) const {
    for (const auto& m : members)
      if (m.first == k) return true;
    return false;
  }
};

class JsonParser {
 public:
  explicit JsonParser(std::string_view s) : s_(s) {}
  bool parse(Json& out) {
    ws();
    if (!value(out, 0)) return false;
    ws();
    return p_ == s_.size();
  }
  size_t position() const { return p_; }

 private:
  std::string_view s_;
  size_t p_ = 0;
  void ws() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\n' || s_[p_] == '\t' || s_[p_] == '\r')) ++p_;
  }
  bool lit(std::string_view w) {
    if (s_.substr(p_, w.size()) != w) return false;
    p_ += w.size();
    return true;
  }
  bool value(Json& v, int depth) {
    if (depth > 200 || p_ >= s_.size()) return false;
    char c = s_[p_];
    if (c == '{') {
      v.kind = Json::object;
      ++p_;
      ws();
      if (p_ < s_.size() && s_[p_] == '}') return ++p_, true;
      while (true) {
        ws();
        Json k;
        if (p_ >= s_.size() || s_[p_] != '"' || !string(k.str)) return false;
        ws();
        if (!lit(":")) return false;
        ws();
        Json m;
        if (!value(m, depth + 1)) return false;
        v.members.emplace_back(k.str, std::move(m));
        ws();
        if (lit(",")) continue;
        return lit("}");
      }
    }
    if (c == '[') {
      v.kind = Json::array;
      ++p_;
      ws();
      if (p_ < s_.size() && s_[p_] == ']') return ++p_, true;
      while (true) {
        ws();
        Json m;
        if (!value(m, depth + 1)) return false;
        v.items.push_back(std::move(m));
        ws();
        if (lit(",")) continue;
        return lit("]");
      }
    }
    if (c == '"') {
      v.kind = Json::string;
      return string(v.str);
    }
    if (lit("true")) return v.kind = Json::boolean, v.b = true, true;
    if (lit("false")) return v.kind = Json::boolean, true;
    if (lit("null")) return true;
    size_t start = p_;
    if (p_ < s_.size() && s_[p_] == '-') ++p_;
    if (p_ >= s_.size() || s_[p_] < '0' || s_[p_] > '9') return false;
    if (s_[p_] == '0') ++p_;
    else while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') ++p_;
    v.kind = Json::number;
    v.str = std::string(s_.substr(start, p_ - start));
    return true;
  }
  bool string(std::string& out) {
    ++p_;  // opening quote
    while (p_ < s_.size()) {
      unsigned char c = static_cast<unsigned char>(s_[p_++]);
      if (c == '"') return true;
      if (c < 0x20) return false;  // raw control characters are not allowed
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (p_ >= s_.size()) return false;
      char e = s_[p_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (p_ + 4 > s_.size()) return false;
          unsigned v = 0;
          for (int i = 0; i < 4; ++i) {
            char h = s_[p_++];
            v <<= 4;
            if (h >= '0' && h <= '9') v |= h - '0';
            else if (h >= 'a' && h <= 'f') v |= h - 'a' + 10;
            else if (h >= 'A' && h <= 'F') v |= h - 'A' + 10;
            else return false;
          }
          if (v > 0xff) return false;  // the dumper only writes \u00XX
          out += static_cast<char>(v);
          break;
        }
        default: return false;
      }
    }
    return false;
  }
};

Json parseJson(const std::string& s) {
  Json j;
  JsonParser p(s);
  EXPECT_TRUE(p.parse(j)) << "invalid JSON near byte " << p.position() << ": "
                          << s.substr(p.position() > 40 ? p.position() - 40 : 0, 80);
  return j;
}

// ---------------------------------------------------------------------------
// Hand-made debug sections: a byte writer that prints PTX directives and keeps
// track of offsets.
class Sec {
 public:
  uint64_t size() const { return size_; }
  Sec& b8(std::initializer_list<int> bytes) {
    for (int b : bytes) {
      text_ += ".b8 " + std::to_string(b) + "\n";
      ++size_;
    }
    return *this;
  }
  Sec& uleb(uint64_t v) {
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      if (v) byte |= 0x80;
      b8({byte});
    } while (v);
    return *this;
  }
  Sec& b32(uint64_t v) {
    text_ += ".b32 " + std::to_string(v) + "\n";
    size_ += 4;
    return *this;
  }
  Sec& sym32(const std::string& s) {
    text_ += ".b32 " + s + "\n";
    size_ += 4;
    return *this;
  }
  Sec& sym64(const std::string& s) {
    text_ += ".b64 " + s + "\n";
    size_ += 8;
    return *this;
  }
  // ptxas 13 keeps only the low 32 bits of a non-negative .b64 constant:
  // wider values are written as negative numbers, or as bytes.
  Sec& b64(uint64_t v) {
    if (v > UINT32_MAX && static_cast<int64_t>(v) >= 0) {
      for (int i = 0; i < 8; ++i) b8({static_cast<uint8_t>(v >> (8 * i))});
      return *this;
    }
    text_ += ".b64 " + (v > UINT32_MAX ? "-" + std::to_string(0 - v) : std::to_string(v)) + "\n";
    size_ += 8;
    return *this;
  }
  Sec& str(std::string_view s) {
    for (unsigned char c : s) b8({c});
    return b8({0});
  }
  Sec& b16(uint64_t v) {
    text_ += ".b16 " + std::to_string(v) + "\n";
    size_ += 2;
    return *this;
  }
  std::string block(const std::string& name) const { return ".section " + name + "\n{\n" + text_ + "}\n"; }

 private:
  std::string text_;
  uint64_t size_ = 0;
};

constexpr std::string_view kHeader =
    ".version 7.0\n.target sm_75, debug\n.address_size 64\n\n.file 1 \"t.cu\"\n\n"
    ".visible .func f()\n{\n$L__a:\n\tret;\n$L__b:\n\tret;\n$L__c:\n}\n\n";

// DW_FORM/DW_AT/DW_TAG numbers used below.
enum : int {
  TAG_array = 0x01, TAG_formal = 0x05, TAG_pointer = 0x0f, TAG_cu = 0x11, TAG_subroutine = 0x15, TAG_base = 0x24,
  TAG_const = 0x26, TAG_subrange = 0x21, TAG_volatile = 0x35, TAG_variable = 0x34,
  AT_location = 0x02, AT_name = 0x03, AT_byte_size = 0x0b, AT_language = 0x13, AT_comp_dir = 0x1b,
  AT_count = 0x37, AT_encoding = 0x3e, AT_type = 0x49, AT_low_pc = 0x11,
  FORM_addr = 0x01, FORM_data4 = 0x06, FORM_string = 0x08, FORM_data1 = 0x0b, FORM_ref4 = 0x13,
};

// ---------------------------------------------------------------------------

TEST(DumpText, Chapter6GoldenAllSections) {
  std::string fixtures = PTXDWARF_FIXTURES;
  std::string ptx = readText(fixtures + "/chapter6.ptx");
  ASSERT_FALSE(ptx.empty());
  auto d = load(ptx, "chapter6.ptx");
  ASSERT_TRUE(d->read.ok());
  std::string out = text(*d);
  std::string goldenPath = std::string(PTXDWARF_GOLDEN) + "/chapter6.dump.txt";
  if (const char* regen = std::getenv("PTXDWARF_REGENERATE_GOLDEN"); regen && *regen == '1') {
    std::ofstream(goldenPath, std::ios::binary) << out;
  }
  std::string golden = readText(goldenPath);
  ASSERT_FALSE(golden.empty()) << goldenPath;
  EXPECT_EQ(out, golden);

  // The Chapter 6 example's shape, independently of the golden file.
  EXPECT_EQ(d->dwarf.units.size(), 1u);
  size_t dies = 0, nulls = 0;
  for (const auto& die : d->dwarf.dies) (die.isNull() ? nulls : dies)++;
  EXPECT_EQ(dies, 9u);
  EXPECT_EQ(nulls, 3u);
  EXPECT_NE(out.find("0x00000045:   DW_TAG_subprogram\n"), std::string::npos);
  EXPECT_NE(out.find("0x00000045 \"_Z3fooii\"\n0x000000ae \"_Z4testPi\"\n"), std::string::npos);
  EXPECT_NE(out.find("                DW_AT_type\t(0x000000a4 \"int\")\n"), std::string::npos);
  EXPECT_NE(out.find("                  DW_AT_type\t(0x00000103 \"int *\")\n"), std::string::npos);
  EXPECT_NE(out.find("                  DW_AT_location\t(DW_OP_addr _Z4testPi_param_0)\n"), std::string::npos);
  EXPECT_NE(out.find("                  DW_AT_location\t(DW_OP_regx %r1)\n"), std::string::npos);
  EXPECT_NE(out.find("(0x02 ADDR_reg_space)"), std::string::npos);
  EXPECT_NE(out.find("length = 0x00000029, format = DWARF32, version = 0x0002, unit_offset = 0x00000000, "
                     "unit_size = 0x00000106\n"),
            std::string::npos);
}

TEST(DumpText, SectionSelectionAndOrder) {
  std::string ptx = readText(std::string(PTXDWARF_FIXTURES) + "/chapter6.ptx");
  auto d = load(ptx, "chapter6.ptx");
  ptxdwarf::print::DumpOptions infoOnly;  // the default: .debug_info only
  std::string out = text(*d, infoOnly);
  EXPECT_EQ(out.rfind("chapter6.ptx:\tfile format ptx\n\n.debug_info contents:\n0x00000000: Compile Unit:", 0), 0u);
  EXPECT_EQ(out.find(".debug_abbrev"), std::string::npos);
  std::string all = text(*d);
  // llvm-dwarfdump's order.
  size_t a = all.find(".debug_abbrev contents:"), i = all.find(".debug_info contents:"),
         l = all.find(".debug_loc contents:"), r = all.find(".debug_aranges contents:"),
         s = all.find(".debug_str contents:"), p = all.find(".debug_pubnames contents:");
  EXPECT_LT(a, i);
  EXPECT_LT(i, l);
  EXPECT_LT(l, r);
  EXPECT_LT(r, s);
  EXPECT_LT(s, p);
  // Absent sections print their header only.
  EXPECT_NE(all.find("\n.debug_loc contents:\n\n.debug_aranges contents:\n\n.debug_str contents:\n\n"),
            std::string::npos);
}

// Builds a unit with the type DIEs of the type-name tests and one variable per type.
struct TypeUnit {
  std::string ptx;
  std::vector<std::string> expected;  // the DW_AT_type line of each variable, in order
  std::string pointerToConstChar;     // the pointer DIE's own DW_AT_type line
};

TypeUnit typeUnit() {
  Sec ab;
  // 1 compile_unit: name, language, comp_dir
  ab.uleb(1).uleb(TAG_cu).b8({1}).uleb(AT_name).uleb(FORM_string).uleb(AT_language).uleb(FORM_data1);
  ab.uleb(AT_comp_dir).uleb(FORM_string).b8({0, 0});
  ab.uleb(2).uleb(TAG_base).b8({0}).uleb(AT_name).uleb(FORM_string).uleb(AT_encoding).uleb(FORM_data1);
  ab.uleb(AT_byte_size).uleb(FORM_data1).b8({0, 0});
  for (int code : {3, 4, 8}) {  // const, pointer, volatile: DW_AT_type only
    int tag = code == 3 ? TAG_const : code == 4 ? TAG_pointer : TAG_volatile;
    ab.uleb(code).uleb(tag).b8({0}).uleb(AT_type).uleb(FORM_ref4).b8({0, 0});
  }
  ab.uleb(5).uleb(TAG_array).b8({1}).uleb(AT_type).uleb(FORM_ref4).b8({0, 0});
  ab.uleb(6).uleb(TAG_subrange).b8({0}).uleb(AT_count).uleb(FORM_data1).b8({0, 0});
  ab.uleb(7).uleb(TAG_variable).b8({0}).uleb(AT_name).uleb(FORM_string).uleb(AT_type).uleb(FORM_ref4).b8({0, 0});
  ab.uleb(9).uleb(TAG_subroutine).b8({1}).uleb(AT_type).uleb(FORM_ref4).b8({0, 0});
  ab.uleb(10).uleb(TAG_formal).b8({0}).uleb(AT_type).uleb(FORM_ref4).b8({0, 0});
  ab.b8({0});

  // .debug_info, laid out by hand: header 11 bytes, then DIEs at known offsets.
  Sec in;
  std::vector<std::pair<uint64_t, std::string>> body;  // built in a second pass
  // Offsets (computed from the encodings below).
  uint64_t off = 11;
  auto at = [&](uint64_t size) {
    uint64_t o = off;
    off += size;
    return o;
  };
  const uint64_t cu = at(1 + 4 + 1 + 6);                 // code, "t.cu\0", lang, "/src\0"
  const uint64_t intT = at(1 + 4 + 1 + 1);               // "int\0"
  const uint64_t charT = at(1 + 5 + 1 + 1);              // "char\0"
  const uint64_t constChar = at(1 + 4);
  const uint64_t ptrConstChar = at(1 + 4);               // const char *
  const uint64_t arr = at(1 + 4);                        // int[32]
  const uint64_t sub = at(1 + 1);
  const uint64_t arrEnd = at(1);                         // NULL
  const uint64_t ptrInt = at(1 + 4);                     // int *
  const uint64_t constPtrInt = at(1 + 4);                // int *const
  const uint64_t ptrArr = at(1 + 4);                     // int (*)[32]
  const uint64_t fn = at(1 + 4);                         // int (int)
  const uint64_t fnParam = at(1 + 4);
  const uint64_t fnEnd = at(1);
  const uint64_t ptrFn = at(1 + 4);                      // int (*)(int)
  const uint64_t volInt = at(1 + 4);                     // volatile int
  (void)sub;
  (void)arrEnd;
  (void)fnParam;
  (void)fnEnd;
  (void)cu;
  const std::vector<std::pair<uint64_t, std::string>> vars = {
      {ptrConstChar, "const char *"}, {arr, "int[32]"},          {ptrInt, "int *"},
      {constPtrInt, "int *const"},    {ptrArr, "int (*)[32]"},   {ptrFn, "int (*)(int)"},
      {volInt, "volatile int"},       {constChar, "const char"}, {fn, "int (int)"},
  };
  const uint64_t unitEnd = off + vars.size() * (1 + 2 + 4) + 1;  // variables "v\0", then the CU's NULL

  in.b32(unitEnd - 4).b16(2).sym32(".debug_abbrev").b8({8});
  in.uleb(1).str("t.cu").b8({4}).str("/src");
  in.uleb(2).str("int").b8({5, 4});
  in.uleb(2).str("char").b8({6, 1});
  in.uleb(3).b32(charT);
  in.uleb(4).b32(constChar);
  in.uleb(5).b32(intT);
  in.uleb(6).b8({32});
  in.b8({0});
  in.uleb(4).b32(intT);
  in.uleb(3).b32(ptrInt);
  in.uleb(4).b32(arr);
  in.uleb(9).b32(intT);
  in.uleb(10).b32(intT);
  in.b8({0});
  in.uleb(4).b32(fn);
  in.uleb(8).b32(intT);
  EXPECT_EQ(in.size(), volInt + 5);
  TypeUnit t;
  {
    char buf[16];
    snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(constChar));
    t.pointerToConstChar = "DW_TAG_pointer_type\n                DW_AT_type\t(" + std::string(buf) + " \"const char\")\n";
  }
  for (const auto& [ref, name] : vars) {
    in.uleb(7).str("v").b32(ref);
    char buf[16];
    snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(ref));
    t.expected.push_back("                DW_AT_type\t(" + std::string(buf) + " \"" + name + "\")\n");
  }
  in.b8({0});
  EXPECT_EQ(in.size(), unitEnd);
  t.ptx = std::string(kHeader) + ab.block(".debug_abbrev") + in.block(".debug_info");
  return t;
}

TEST(DumpText, TypeNameSpelling) {
  TypeUnit t = typeUnit();
  auto d = load(t.ptx, "types.ptx");
  ASSERT_TRUE(d->read.ok());
  ASSERT_FALSE(d->dwarf.diagnostics.hasErrors());
  std::string out = text(*d);
  size_t from = 0;
  for (const std::string& line : t.expected) {
    size_t at = out.find(line, from);
    EXPECT_NE(at, std::string::npos) << "missing " << line << "in\n" << out;
    if (at != std::string::npos) from = at + line.size();
  }
  // The type DIEs' own DW_AT_type lines name the referenced type too.
  EXPECT_NE(out.find(t.pointerToConstChar), std::string::npos) << out;
  // And the JSON carries the same spelling.
  Json j = parseJson(json(*d));
  const Json& cuDie = j["units"][0]["dies"][0];
  const Json& children = cuDie["children"];
  ASSERT_EQ(children.kind, Json::array);
  std::vector<std::string> names;
  for (const Json& c : children.items)
    if (c["tag"].str == "DW_TAG_variable") names.push_back(c["attributes"][1]["type_name"].str);
  ASSERT_EQ(names.size(), 9u);
  EXPECT_EQ(names[0], "const char *");
  EXPECT_EQ(names[1], "int[32]");
  EXPECT_EQ(names[5], "int (*)(int)");
}

TEST(DumpText, LocationList) {
  // Built explicitly so every offset is visible in the test.
  Sec ab;
  ab.uleb(1).uleb(TAG_cu).b8({1}).uleb(AT_name).uleb(FORM_string).uleb(AT_low_pc).uleb(FORM_addr).b8({0, 0});
  ab.uleb(2).uleb(TAG_variable).b8({0}).uleb(AT_name).uleb(FORM_string).uleb(AT_location).uleb(FORM_data4);
  ab.b8({0, 0, 0});
  Sec in;
  in.b32(40 - 4).b16(2).sym32(".debug_abbrev").b8({8});  // 11
  in.uleb(1).str("t.cu").b64(0);                          // 25
  in.uleb(2).str("x").sym32(".debug_loc");                 // 32
  in.uleb(2).str("y").sym32(".debug_loc+59");              // 39
  in.b8({0});                                              // 40
  Sec loc;
  // List at 0.
  loc.sym64("$L__a").sym64("$L__b").b16(5).b8({0x90, 0xb1, 0xe4, 0x95, 0x01});  // regx %r1: 16+2+5 = 23
  loc.sym64("$L__b").sym64("$L__c").b16(2).b8({0x93, 0x04});                    // piece 4: 20 -> 43
  loc.b64(0).b64(0);                                                             // end: 59
  // List at 59: a base address selection entry, then an offset pair.
  loc.b64(~0ull).sym64("$L__b");                                                 // 75
  loc.b64(0x10).b64(0x20).b16(1).b8({0x50});                                     // DW_OP_reg0: 94
  loc.b64(0).b64(0);                                                             // 110
  ASSERT_EQ(loc.size(), 110u);
  std::string ptx = std::string(kHeader) + ab.block(".debug_abbrev") + in.block(".debug_info") +
                    loc.block(".debug_loc");
  auto d = load(ptx, "loc.ptx");
  ASSERT_TRUE(d->read.ok());
  std::string out = text(*d);
  EXPECT_NE(out.find("0x00000019:   DW_TAG_variable\n"
                     "                DW_AT_name\t(\"x\")\n"
                     "                DW_AT_location\t(.debug_loc: \n"
                     "                   [$L__a, $L__b): DW_OP_regx %r1\n"
                     "                   [$L__b, $L__c): DW_OP_piece 0x4)\n"),
            std::string::npos)
      << out;
  // After a base address selection entry the pairs are offsets from that base.
  EXPECT_NE(out.find("                DW_AT_location\t(.debug_loc+59: \n"
                     "                   [$L__b+0x10, $L__b+0x20): DW_OP_reg0)\n"),
            std::string::npos)
      << out;
  // --debug-loc: raw entries, lists separated by blank lines (llvm-dwarfdump's layout).
  EXPECT_NE(out.find(".debug_loc contents:\n"
                     "0x00000000: \n"
                     "            ($L__a, $L__b): DW_OP_regx %r1\n"
                     "            ($L__b, $L__c): DW_OP_piece 0x4\n"
                     "\n"
                     "0x0000003b: \n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("            (0xffffffffffffffff, $L__b)\n"
                     "            (0x0000000000000010, 0x0000000000000020): DW_OP_reg0\n"),
            std::string::npos)
      << out;

  Json j = parseJson(json(*d));
  const Json& x = j["units"][0]["dies"][0]["children"][0];
  const Json& ll = x["attributes"][1]["loclist"];
  EXPECT_EQ(ll["offset"].str, "0");
  EXPECT_EQ(ll["symbol"].str, ".debug_loc");
  ASSERT_EQ(ll["entries"].items.size(), 2u);
  EXPECT_EQ(ll["entries"][0]["begin_symbol"].str, "$L__a");
  EXPECT_EQ(ll["entries"][0]["expression"][0]["register"].str, "%r1");
  EXPECT_EQ(ll["entries"][0]["text"].str, "[$L__a, $L__b): DW_OP_regx %r1");
  EXPECT_TRUE(ll["complete"].b);
}

// nvcc -G gives a variable live across a long kernel one location list of
// tens of thousands of entries. Dumped to a stream, its text goes out as it
// is rendered, in the attribute (--debug-info) and in --debug-loc: the
// buffer keeps the size dumpText reserved for a stream instead of growing
// to hold the list's megabytes, and the stream gets the whole text.
TEST(DumpText, LongLocationListStreams) {
  constexpr size_t kEntries = 50000;  // about 2.7 MB of text in each of the two places
  Sec ab;
  ab.uleb(1).uleb(TAG_cu).b8({1}).uleb(AT_name).uleb(FORM_string).b8({0, 0});
  ab.uleb(2).uleb(TAG_variable).b8({0}).uleb(AT_name).uleb(FORM_string).uleb(AT_location).uleb(FORM_data4);
  ab.b8({0, 0, 0});
  Sec in;
  in.b32(25 - 4).b16(2).sym32(".debug_abbrev").b8({8});  // 11
  in.uleb(1).str("t.cu");                                 // 17
  in.uleb(2).str("x").sym32(".debug_loc");                 // 24
  in.b8({0});                                              // 25
  std::string locText = ".section .debug_loc {\n";
  for (size_t i = 0; i < kEntries; ++i) {
    locText += ".b64 $L__" + std::to_string(i) + "\n.b64 $L__" + std::to_string(i + 1) + "\n";
    locText += ".b8 5, 0, 144, 177, 228, 149, 1\n";  // length 5: DW_OP_regx %r1
  }
  locText += ".b64 0\n.b64 0\n}\n";
  const std::string ptx = std::string(kHeader) + ab.block(".debug_abbrev") + in.block(".debug_info") + locText;
  auto d = load(ptx, "long.ptx");
  ASSERT_TRUE(d->read.ok());
  ptxdwarf::print::DumpOptions o;
  o.info = o.loc = true;

  std::FILE* stream = std::tmpfile();
  ASSERT_NE(stream, nullptr);
  std::string out;
  ptxdwarf::print::dumpText(d->read.module, d->dwarf, o, out, toFile(stream));
  const size_t capacity = out.capacity();
  std::fflush(stream);
  const long written = std::ftell(stream);
  std::fclose(stream);

  const std::string whole = text(*d, o);  // the same dump, all in the string
  EXPECT_EQ(static_cast<size_t>(written), whole.size());
  EXPECT_GT(whole.size(), 2 * (size_t{2} << 20)) << "the list's text should be larger than the stream's buffer";
  EXPECT_LE(capacity, (size_t{2} << 20) + 4096 + 4096) << "the buffer grew to hold a whole list";
  EXPECT_NE(whole.find("                   ($L__49999, $L__50000): DW_OP_regx %r1)\n"), std::string::npos);
  EXPECT_NE(whole.find("            ($L__49999, $L__50000): DW_OP_regx %r1\n"), std::string::npos);

  // JSON and JSON lines: each entry is an object of its own (the list's
  // megabytes go out as they come); what stays whole is the attribute's
  // one-string "text", a tenth of it.
  for (const bool lines : {false, true}) {
    std::FILE* jsonStream = std::tmpfile();
    ASSERT_NE(jsonStream, nullptr);
    std::string jsonOut;
    ptxdwarf::print::dumpJson(d->read.module, d->dwarf, o, jsonOut, toFile(jsonStream), lines);
    const size_t jsonCapacity = jsonOut.capacity();
    std::fflush(jsonStream);
    const long jsonWritten = std::ftell(jsonStream);
    std::fclose(jsonStream);
    std::string jsonWhole;
    ptxdwarf::print::dumpJson(d->read.module, d->dwarf, o, jsonWhole, {}, lines);
    EXPECT_EQ(static_cast<size_t>(jsonWritten), jsonWhole.size()) << lines;
    EXPECT_LT(jsonCapacity, jsonWhole.size() / 2) << lines << ": the buffer held most of the list";
  }
}

TEST(DumpJson, Chapter6IsWellFormedAndComplete) {
  std::string ptx = readText(std::string(PTXDWARF_FIXTURES) + "/chapter6.ptx");
  auto d = load(ptx, "chapter6.ptx");
  std::string out = json(*d);
  Json j = parseJson(out);
  ASSERT_EQ(j.kind, Json::object);
  EXPECT_EQ(j["file"].str, "chapter6.ptx");
  for (const char* k : {"abbrev", "units", "loc", "aranges", "str", "pubnames"}) EXPECT_TRUE(j.has(k)) << k;
  ASSERT_EQ(j["units"].items.size(), 1u);
  const Json& u = j["units"][0];
  EXPECT_EQ(u["length"].str, "262");
  EXPECT_EQ(u["version"].str, "2");
  EXPECT_EQ(u["addr_size"].str, "8");
  ASSERT_EQ(u["dies"].items.size(), 1u);
  const Json& cu = u["dies"][0];
  EXPECT_EQ(cu["tag"].str, "DW_TAG_compile_unit");
  const Json& kids = cu["children"];
  ASSERT_EQ(kids.items.size(), 5u);
  EXPECT_EQ(kids[0]["tag"].str, "DW_TAG_subprogram");
  EXPECT_EQ(kids[0]["offset"].str, "69");
  ASSERT_EQ(kids[0]["children"].items.size(), 2u);  // i, j
  EXPECT_EQ(kids[0]["children"][1]["attributes"][0]["value"].str, "j");
  EXPECT_EQ(kids[1]["tag"].str, "DW_TAG_base_type");
  EXPECT_EQ(kids[2]["offset"].str, "174");
  ASSERT_EQ(kids[2]["children"].items.size(), 1u);  // p
  const Json& p = kids[2]["children"][0];
  const Json& loc = p["attributes"][4];
  EXPECT_EQ(loc["name"].str, "DW_AT_location");
  EXPECT_EQ(loc["text"].str, "DW_OP_addr _Z4testPi_param_0");
  EXPECT_EQ(loc["expression"][0]["symbol"].str, "_Z4testPi_param_0");
  EXPECT_EQ(p["attributes"][5]["address_class"].str, "ADDR_param_space");
  EXPECT_EQ(p["attributes"][1]["file"].str, "/home/mmurphy/test/call_example.cu");
  EXPECT_EQ(p["attributes"][3]["type_name"].str, "int *");
  const Json& low = kids[0]["attributes"][6];
  EXPECT_EQ(low["name"].str, "DW_AT_low_pc");
  EXPECT_EQ(low["symbol"].str, "func_begin0");
  EXPECT_EQ(kids[3]["tag"].str, "DW_TAG_unspecified_type");
  EXPECT_EQ(kids[4]["tag"].str, "DW_TAG_pointer_type");
  EXPECT_FALSE(kids[4].has("children"));
  const Json& pub = j["pubnames"][0]["entries"];
  ASSERT_EQ(pub.items.size(), 2u);
  EXPECT_EQ(pub[0]["offset"].str, "69");
  EXPECT_EQ(pub[1]["offset"].str, "174");
  EXPECT_EQ(pub[1]["name"].str, "_Z4testPi");
  ASSERT_EQ(j["abbrev"][0]["abbrevs"].items.size(), 6u);
  EXPECT_EQ(j["abbrev"][0]["abbrevs"][5]["tag"].str, "DW_TAG_pointer_type");
}

TEST(DumpJson, EscapesStrings) {
  // A producer string with a quote, a backslash, a tab, a newline, a control
  // character and a non-ASCII byte.
  const std::string nasty = std::string("a\"b\\c\td\ne") + '\x01' + "\xc3\xa9";
  Sec ab;
  ab.uleb(1).uleb(TAG_cu).b8({0}).uleb(AT_name).uleb(FORM_string).b8({0, 0, 0});
  Sec in;
  uint64_t unitSize = 11 + 1 + nasty.size() + 1;
  in.b32(unitSize - 4).b16(2).sym32(".debug_abbrev").b8({8});
  in.uleb(1).str(nasty);
  std::string ptx = std::string(kHeader) + ab.block(".debug_abbrev") + in.block(".debug_info");
  auto d = load(ptx, "we\"ird\\name.ptx");
  ASSERT_TRUE(d->read.ok());
  std::string out = json(*d);
  Json j = parseJson(out);
  EXPECT_EQ(j["file"].str, "we\"ird\\name.ptx");
  const Json& name = j["units"][0]["dies"][0]["attributes"][0];
  EXPECT_EQ(name["value"].str, nasty);  // round-trips byte for byte
  EXPECT_NE(out.find(R"("value":"a\"b\\c\td\ne\u0001\u00c3\u00a9")"), std::string::npos) << out;
  // The "text" field (and the text dump) use llvm-dwarfdump's escaping.
  EXPECT_EQ(name["text"].str, R"("a\"b\\c\td\ne\001\303\251")");
  EXPECT_NE(text(*d).find("DW_AT_name\t(\"a\\\"b\\\\c\\td\\ne\\001\\303\\251\")\n"), std::string::npos);
}

TEST(DumpJson, DeepTreeDoesNotRecurse) {
  // 100 000 nested lexical blocks: the JSON printer must not recurse per level.
  const int depth = 100000;
  Sec ab;
  ab.uleb(1).uleb(TAG_cu).b8({1}).b8({0, 0});
  ab.uleb(2).uleb(0x0b /* lexical_block */).b8({1}).b8({0, 0, 0});
  std::string info;
  uint64_t unitSize = 11 + 1 + static_cast<uint64_t>(depth) + static_cast<uint64_t>(depth) + 1;
  info += ".section .debug_info\n{\n.b32 " + std::to_string(unitSize - 4) + "\n.b16 2\n.b32 .debug_abbrev\n.b8 8\n.b8 1\n";
  for (int i = 0; i < depth; ++i) info += ".b8 2\n";
  for (int i = 0; i <= depth; ++i) info += ".b8 0\n";
  info += "}\n";
  std::string ptx = std::string(kHeader) + ab.block(".debug_abbrev") + info;
  auto d = load(ptx, "deep.ptx");
  ASSERT_TRUE(d->read.ok());
  ptxdwarf::print::DumpOptions infoOnly;
  std::string out = json(*d, infoOnly);
  // The test parser recurses, so check the nesting by counting instead.
  size_t opens = 0, closes = 0, objects = 0, objectEnds = 0;
  for (char c : out) {
    opens += c == '[';
    closes += c == ']';
    objects += c == '{';
    objectEnds += c == '}';
  }
  EXPECT_EQ(opens, closes);
  EXPECT_EQ(objects, objectEnds);
  EXPECT_TRUE(out.ends_with("]}]}]}]}\n")) << out.substr(out.size() - 20);
  EXPECT_NE(out.find("\"tag\":\"DW_TAG_lexical_block\""), std::string::npos);
  // (The text dump is not run here: llvm-dwarfdump's layout indents each DIE by
  // twice its depth, so 100 000 levels would print about 10^10 spaces.)
}

}  // namespace
