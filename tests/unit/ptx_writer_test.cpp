// The PTX writer: every style re-reads to the same bytes, relocations and
// labels; packed output shown literally; version limits reported, never
// written; verbose comments; reformat keeps every byte outside the blocks.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "corpus.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/write/ptx_writer.h"

using namespace ptxdwarf;
using ptxdwarf::write::Style;
using ptxdwarf::write::WriteOptions;

namespace {

std::string readFixture(const std::string& name) {
  std::ifstream f(std::string(PTXDWARF_FIXTURES) + "/" + name, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

constexpr Style kStyles[] = {Style::packed, Style::onePerLine, Style::verbose, Style::dense};

std::string errorsOf(const Diagnostics& d, std::string_view file = "t.ptx") {
  std::string s;
  for (const auto& i : d.items) s += i.format(file) + "\n";
  return s;
}

ptx::Version version(unsigned major, unsigned minor) { return {major, minor, true}; }

// Same bytes, relocations (offset, size, expression) and labels (name, offset), in order.
void expectSameImages(const std::vector<SectionImage>& a, const std::vector<SectionImage>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i].name);
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].bytes, b[i].bytes);
    ASSERT_EQ(a[i].relocations.size(), b[i].relocations.size());
    for (size_t k = 0; k < a[i].relocations.size(); ++k) {
      const Relocation &x = a[i].relocations[k], &y = b[i].relocations[k];
      EXPECT_EQ(x.offset, y.offset);
      EXPECT_EQ(x.size, y.size);
      EXPECT_EQ(x.expression(), y.expression());
    }
    ASSERT_EQ(a[i].labels.size(), b[i].labels.size());
    for (size_t k = 0; k < a[i].labels.size(); ++k) {
      EXPECT_EQ(a[i].labels[k].name, b[i].labels[k].name);
      EXPECT_EQ(a[i].labels[k].offset, b[i].labels[k].offset);
    }
  }
}

// Writes `images` in `style` under a small PTX header and reads them back.
std::vector<SectionImage> roundTrip(const std::vector<SectionImage>& images, Style style,
                                    const read::Dwarf* dwarf = nullptr, ptx::Version v = version(7, 5)) {
  WriteOptions o;
  o.style = style;
  o.version = v;
  o.dwarf = dwarf;
  Diagnostics diags;
  std::string text = ".version " + std::to_string(v.major) + "." + std::to_string(v.minor) +
                     "\n.target sm_75, debug\n.address_size 64\n";
  EXPECT_TRUE(write::writeSections(text, images, o, diags)) << errorsOf(diags);
  ptx::ReadResult r = ptx::read(text, "out.ptx");
  EXPECT_TRUE(r.ok()) << errorsOf(r.diagnostics, "out.ptx") << text;
  return std::move(r.module.sections);
}

SectionImage image(std::string name, std::vector<uint8_t> bytes) {
  SectionImage s;
  s.name = std::move(name);
  s.bytes = std::move(bytes);
  return s;
}

// Names are string literals, or for a difference or an addend kept by an
// image that lives as long as the tests: a Relocation views its names.
Relocation reloc(uint32_t offset, uint8_t size, SymbolName symbol, int64_t addend = 0, std::string_view minus = {}) {
  if (minus.empty() && addend == 0) return {offset, size, symbol};
  static SectionImage differences;
  return differences.addRelocation(offset, size, symbol, minus, addend);
}

// A hand-made image with every feature: relocations of both widths, an addend,
// a section-name symbol, a label difference, labels at the start, inside, on a
// relocation, several at one offset and one at the very end.
std::vector<SectionImage> handMade() {
  std::vector<uint8_t> bytes;
  for (unsigned i = 0; i < 60; ++i) bytes.push_back(uint8_t(i * 37 + 255));
  SectionImage s = image(".debug_info", bytes);
  for (uint64_t o : {4u, 20u, 40u, 52u})  // relocated bytes are zero in a read image
    for (uint64_t k = 0; k < 8; ++k) s.bytes[o + k] = 0;
  s.relocations = {reloc(4, 4, ".debug_abbrev"), reloc(20, 8, "func_begin0"), reloc(28, 4, ".debug_loc", 138),
                   reloc(40, 4, "$L__end", 0, "$L__start"), reloc(52, 8, "sym", 8)};
  for (uint64_t o = 28; o < 32; ++o) s.bytes[o] = 0;
  s.bytes[44] = 7;  // after the 4-byte relocation at 40
  s.labels = {{"$L__start", 0, {}}, {"$L__mid", 17, {}}, {"$L__a", 20, {}}, {"$L__b", 20, {}}, {"$L__end", 60, {}}};
  SectionImage empty = image(".debug_macinfo", {});
  SectionImage abbrev = image(".debug_abbrev", {1, 17, 0, 0, 0, 0});
  return {s, empty, abbrev};
}

}  // namespace

TEST(PtxWriter, Chapter6RoundTripsInEveryStyle) {
  ptx::ReadResult r = ptx::read(readFixture("chapter6.ptx"), "chapter6.ptx");
  ASSERT_TRUE(r.ok());
  const read::Dwarf dwarf = read::decode(r.module.sections);
  for (Style style : kStyles) {
    SCOPED_TRACE(std::string(write::styleName(style)));
    expectSameImages(r.module.sections, roundTrip(r.module.sections, style, &dwarf, version(4, 2)));
  }
}

TEST(PtxWriter, HandMadeImagesRoundTripInEveryStyle) {
  const auto images = handMade();
  for (Style style : kStyles) {
    SCOPED_TRACE(std::string(write::styleName(style)));
    expectSameImages(images, roundTrip(images, style));
  }
  // Verbose with a Dwarf that does not describe these bytes falls back to one per line.
  ptx::ReadResult c6 = ptx::read(readFixture("chapter6.ptx"), "chapter6.ptx");
  const read::Dwarf other = read::decode(c6.module.sections);
  expectSameImages(images, roundTrip(images, Style::verbose, &other));
}

TEST(PtxWriter, PackedChapter6PubnamesLiterally) {
  ptx::ReadResult r = ptx::read(readFixture("chapter6.ptx"), "chapter6.ptx");
  ASSERT_TRUE(r.ok());
  const SectionImage* pubnames = r.module.section(".debug_pubnames");
  ASSERT_NE(pubnames, nullptr);
  WriteOptions o;
  o.style = Style::packed;
  o.version = r.module.version;
  Diagnostics diags;
  std::string out = "// before\n";
  ASSERT_TRUE(write::writeSection(out, *pubnames, o, diags)) << errorsOf(diags);
  EXPECT_EQ(out,
            "// before\n"
            "\t.section\t.debug_pubnames\n"
            "\t{\n"
            ".b8 41, 0, 0, 0, 2, 0\n"
            ".b32 .debug_info\n"
            ".b8 6, 1, 0, 0, 69, 0, 0, 0, 95, 90, 51, 102, 111, 111, 105, 105\n"
            ".b8 0, 174, 0, 0, 0, 95, 90, 52, 116, 101, 115, 116, 80, 105, 0, 0\n"
            ".b8 0, 0, 0\n"
            "\t}\n");

  o.style = Style::onePerLine;
  const std::string one = write::writeSections(std::span<const SectionImage>(pubnames, 1), o, diags);
  EXPECT_EQ(one.substr(0, 60), "\t.section\t.debug_pubnames\n\t{\n.b8 41\n.b8 0\n.b8 0\n.b8 0\n.b8 2\n");
  EXPECT_NE(one.find("\n.b32 .debug_info\n.b8 6\n.b8 1\n"), std::string::npos);
}

// Dense: whole words of data as little-endian `.b32` in hex (6,1,0,0 is
// 0x106; the name "_Z3f" is 0x66335a5f; below 10 a decimal digit), the one
// to three bytes left before a relocation or the end as `.b8`; relocations
// and labels as in packed.
TEST(PtxWriter, DenseChapter6PubnamesLiterally) {
  ptx::ReadResult r = ptx::read(readFixture("chapter6.ptx"), "chapter6.ptx");
  ASSERT_TRUE(r.ok());
  const SectionImage* pubnames = r.module.section(".debug_pubnames");
  ASSERT_NE(pubnames, nullptr);
  WriteOptions o;
  o.style = Style::dense;
  o.version = r.module.version;
  Diagnostics diags;
  std::string out;
  ASSERT_TRUE(write::writeSection(out, *pubnames, o, diags)) << errorsOf(diags);
  EXPECT_EQ(out,
            "\t.section\t.debug_pubnames\n"
            "\t{\n"
            ".b32 0x29\n"
            ".b8 2, 0\n"
            ".b32 .debug_info\n"
            ".b32 0x106, 0x45, 0x66335a5f, 0x69696f6f\n"
            ".b32 0xae00, 0x345a5f00, 0x74736574, 0x6950\n"
            ".b8 0, 0, 0\n"
            "\t}\n");
  // bytesPerLine rounds down to whole words, one at least.
  for (unsigned perLine : {1u, 7u}) {
    o.bytesPerLine = perLine;
    out.clear();
    ASSERT_TRUE(write::writeSection(out, *pubnames, o, diags));
    EXPECT_NE(out.find("\n.b32 0x106\n.b32 0x45\n"), std::string::npos) << out;
  }
}

// Dense words at every length of their hex digits, the edges of each, every
// digit in every place, and the decimal digits below 10: the text is the
// number as written here, and the bytes read back the same.
TEST(PtxWriter, DenseWordsOfEveryLength) {
  std::vector<uint32_t> words{0, 1, 9, 10, 4294967295u, 0x01234567u, 0x89abcdefu, 0xfedcba98u, 0x76543210u};
  for (uint64_t p = 16; p <= 4294967295u; p *= 16) words.insert(words.end(), {uint32_t(p - 1), uint32_t(p)});
  for (uint32_t digit = 1; digit < 16; ++digit) words.push_back(digit * 0x11111111u);
  std::vector<uint8_t> bytes;
  for (uint32_t w : words)
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(w >> (8 * i)));
  const SectionImage s = image(".debug_info", bytes);
  WriteOptions o;
  o.style = Style::dense;
  o.bytesPerLine = 4;  // a word a line
  o.version = version(7, 5);
  Diagnostics diags;
  std::string out;
  ASSERT_TRUE(write::writeSection(out, s, o, diags)) << errorsOf(diags);
  std::string expected = "\t.section\t.debug_info\n\t{\n";
  for (uint32_t w : words) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%x", w);
    expected += ".b32 " + (w < 10 ? std::to_string(w) : std::string(hex)) + "\n";
  }
  EXPECT_EQ(out, expected + "\t}\n");
  expectSameImages({s}, roundTrip({s}, Style::dense));
}

TEST(PtxWriter, PackedHandMadeLayout) {
  const auto images = handMade();
  WriteOptions o;
  o.version = version(7, 5);
  o.bytesPerLine = 8;
  Diagnostics diags;
  const std::string out = write::writeSections(std::span<const SectionImage>(images).first(1), o, diags);
  ASSERT_FALSE(out.empty()) << errorsOf(diags);
  EXPECT_EQ(out,
            "\t.section\t.debug_info\n\t{\n"
            "$L__start:\n"
            ".b8 255, 36, 73, 110\n"
            ".b32 .debug_abbrev\n"
            ".b8 0, 0, 0, 0, 187, 224, 5, 42\n"
            ".b8 79\n"
            "$L__mid:\n"
            ".b8 116, 153, 190\n"
            "$L__a:\n"
            "$L__b:\n"
            ".b64 func_begin0\n"
            ".b32 .debug_loc+138\n"
            ".b8 159, 196, 233, 14, 51, 88, 125, 162\n"
            ".b32 $L__end-$L__start\n"
            ".b8 7, 0, 0, 0, 239, 20, 57, 94\n"
            ".b64 sym+8\n"
            "$L__end:\n"
            "\t}\n");
}

TEST(PtxWriter, VersionLimitsAreErrorsNotOutput) {
  const auto images = handMade();
  WriteOptions o;
  o.version = version(6, 4);
  Diagnostics diags;
  std::string out = "keep";
  EXPECT_FALSE(write::writeSections(out, images, o, diags));
  EXPECT_EQ(out, "keep");  // nothing appended
  const std::string all = errorsOf(diags);
  EXPECT_NE(all.find("label '$L__start' at .debug_info+0: labels inside a section need PTX .version 7.0"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("relocation '$L__end-$L__start' at .debug_info+40: a label difference needs PTX .version 7.5"),
            std::string::npos)
      << all;
  ASSERT_FALSE(diags.items.empty());
  EXPECT_EQ(diags.items[0].section, ".debug_info");
  EXPECT_EQ(diags.items[0].offset, 40);

  // 7.0: labels are fine, the difference is not.
  Diagnostics d70;
  o.version = version(7, 0);
  EXPECT_TRUE(write::writeSections(images, o, d70).empty());
  ASSERT_EQ(d70.errorCount(), 1u) << errorsOf(d70);
  EXPECT_NE(d70.items[0].message.find("label difference needs PTX .version 7.5 or later (target is 7.0)"),
            std::string::npos);

  // 7.5 accepts everything.
  Diagnostics d75;
  o.version = version(7, 5);
  EXPECT_FALSE(write::writeSections(images, o, d75).empty()) << errorsOf(d75);
  EXPECT_EQ(d75.errorCount(), 0u);

  // No version given: every rule holds (the writer cannot know the PTX is new
  // enough), and each error says to set the version; nothing is written.
  Diagnostics unset;
  o.version = {};
  EXPECT_TRUE(write::writeSections(images, o, unset).empty());
  EXPECT_EQ(unset.errorCount(), 6u) << errorsOf(unset);
  EXPECT_NE(errorsOf(unset).find("a label difference needs PTX .version 7.5 or later (target is not given: set "
                                 "WriteOptions::version to the .version of the PTX the sections go into)"),
            std::string::npos)
      << errorsOf(unset);
}

TEST(PtxWriter, RejectsWhatPtxasCannotRead) {
  auto one = [](Relocation r, std::vector<SectionLabel> labels = {}) {
    SectionImage s = image(".debug_info", std::vector<uint8_t>(16, 0));
    s.relocations = {std::move(r)};
    s.labels = std::move(labels);
    WriteOptions o;
    o.version = version(8, 0);
    Diagnostics d;
    EXPECT_FALSE(write::validate(std::span<const SectionImage>(&s, 1), o, d));
    return d.items.empty() ? std::string() : d.items[0].message;
  };
  EXPECT_NE(one(reloc(0, 8, "sym", -8)).find("negative addend"), std::string::npos);
  EXPECT_NE(one(reloc(0, 4, "A", 4, "B")).find("without an addend"), std::string::npos);
  EXPECT_NE(one(reloc(0, 2, "sym")).find("must be .b32 or .b64"), std::string::npos);
  EXPECT_NE(one(reloc(12, 8, "sym")).find("past the end"), std::string::npos);
  EXPECT_NE(one(reloc(0, 8, "bad name")).find("not a valid PTX symbol"), std::string::npos);
  EXPECT_NE(one(reloc(0, 8, "sym"), {{"inside", 4, {}}}).find("inside the relocated operand"), std::string::npos);
  EXPECT_NE(one(reloc(0, 8, "sym"), {{"late", 17, {}}}).find("past the end"), std::string::npos);
  // Code labels in `A-B`: ptxas says "label invalid" at every .version.
  EXPECT_EQ(one(reloc(0, 8, "$L__func_end0", 0, "$L__func_begin0")),
            "relocation '$L__func_end0-$L__func_begin0' at .debug_info+0: ptxas computes a label difference only "
            "between labels defined inside debug sections (code labels give \"label invalid\")");
}

TEST(PtxWriter, VerboseChapter6Comments) {
  ptx::ReadResult r = ptx::read(readFixture("chapter6.ptx"), "chapter6.ptx");
  ASSERT_TRUE(r.ok());
  const read::Dwarf dwarf = read::decode(r.module.sections);
  WriteOptions o;
  o.style = Style::verbose;
  o.dwarf = &dwarf;
  o.version = r.module.version;
  Diagnostics diags;
  const std::string out = write::writeSections(r.module.sections, o, diags);
  ASSERT_FALSE(out.empty()) << errorsOf(diags);
  for (const char* line : {
           // .debug_info: unit header, DIEs, attributes (strings quoted, expressions decoded)
           ".b32 262\t// Length of Unit\n",
           ".b8 2, 0\t// DWARF version number\n",
           ".b32 .debug_abbrev\t// Offset Into Abbrev. Section\n",
           ".b8 8\t// Address Size (in bytes)\n",
           ".b8 1\t// Abbrev [1] 0xb:0xff DW_TAG_compile_unit\n",
           ".b8 108, 103, 101, 110, 102, 101, 58, 32, 69, 68, 71, 32, 52, 46, 57, 0\t// DW_AT_producer \"lgenfe: EDG 4.9\"\n",
           ".b8 2\t// Abbrev [2] 0x45:0x5f DW_TAG_subprogram\n",
           ".b64 func_begin0\t// DW_AT_low_pc\n",
           ".b32 164\t// DW_AT_type\n",
           ".b8 5, 144, 177, 228, 149, 1\t// DW_AT_location DW_OP_regx %r1\n",
           ".b8 9, 3\t// DW_AT_location DW_OP_addr _Z4testPi_param_0\n.b64 _Z4testPi_param_0\n",
           ".b8 0\t// End Of Children Mark\n",
           // .debug_abbrev
           ".b8 1\t// Abbreviation Code\n.b8 17\t// DW_TAG_compile_unit\n.b8 1\t// DW_CHILDREN_yes\n"
           ".b8 37\t// DW_AT_producer\n.b8 8\t// DW_FORM_string\n",
           ".b8 0\t// EOM(1)\n.b8 0\t// EOM(2)\n",
           ".b8 0\t// EOM(3)\n\t}\n",
           // .debug_pubnames
           ".b32 41\t// Length of Public Names Info\n",
           ".b32 .debug_info\t// Offset of Compilation Unit Info\n",
           ".b32 174\t// DIE offset\n.b8 95, 90, 52, 116, 101, 115, 116, 80, 105, 0\t// External Name \"_Z4testPi\"\n",
           ".b32 0\t// End Mark\n",
       }) {
    EXPECT_NE(out.find(line), std::string::npos) << "missing: " << line << "\nin:\n" << out;
  }
  EXPECT_NE(out.find("// DW_TAG_compile_unit"), std::string::npos);
  EXPECT_NE(out.find("// DW_AT_producer"), std::string::npos);
  // Without a Dwarf, verbose is one per line.
  o.dwarf = nullptr;
  const std::string plain = write::writeSections(r.module.sections, o, diags);
  o.style = Style::onePerLine;
  EXPECT_EQ(plain, write::writeSections(r.module.sections, o, diags));
}

TEST(PtxWriter, CommentsCannotBreakTheLine) {
  // A string with a newline, a backslash and a non-ASCII byte in .debug_info.
  const std::string ptx =
      ".version 7.0\n.target sm_75, debug\n.address_size 64\n"
      ".section .debug_abbrev { .b8 1, 17, 0, 3, 8, 0, 0, 0 }\n"
      ".section .debug_info { .b32 15\n.b8 2, 0\n.b32 .debug_abbrev\n.b8 8, 1, 97, 10, 92, 200, 0 }\n";
  ptx::ReadResult r = ptx::read(ptx, "t.ptx");
  ASSERT_TRUE(r.ok()) << errorsOf(r.diagnostics);
  const read::Dwarf dwarf = read::decode(r.module.sections);
  WriteOptions o;
  o.style = Style::verbose;
  o.dwarf = &dwarf;
  Diagnostics diags;
  const std::string out = write::writeSections(r.module.sections, o, diags);
  EXPECT_NE(out.find(".b8 97, 10, 92, 200, 0\t// DW_AT_name \"a\\x0a\\x5c\\xc8\"\n"), std::string::npos) << out;
  expectSameImages(r.module.sections, roundTrip(r.module.sections, Style::verbose, &dwarf));
}

TEST(PtxWriter, ReformatKeepsEverythingOutsideTheBlocks) {
  const std::string text =
      "// head\r\n.version 7.5\r\n.target sm_75, debug\r\n.address_size 64\r\n"
      "\t.section .debug_abbrev { .b8 1, 17, 0, 0, 0, 0 }  // trailing\r\n"
      ".global .b32 gv;\r\n"
      "  .section .debug_str\r\n{\r\n.b8 104, 105, 0\r\n}\r\n"
      "/* between */ .section .debug_abbrev { }\r\n"
      ".section .debug_info { .b32 .debug_abbrev }\r\n"
      "// tail\r\n";
  ptx::ReadResult r = ptx::read(text, "t.ptx");
  ASSERT_TRUE(r.ok()) << errorsOf(r.diagnostics);
  ASSERT_EQ(r.module.section(".debug_abbrev")->blocks.size(), 2u);

  // Replace .debug_abbrev (two blocks: the second is removed) and .debug_info, keep
  // .debug_str as it is, add .debug_loc.
  std::vector<SectionImage> repl = {*r.module.section(".debug_info"), *r.module.section(".debug_abbrev"),
                                    image(".debug_loc", {0, 0})};
  repl[0].bytes.push_back(9);
  WriteOptions o;
  o.style = Style::packed;
  Diagnostics diags;
  const auto out = write::reformat(text, r.module, repl, o, diags);
  ASSERT_TRUE(out.has_value()) << errorsOf(diags);
  EXPECT_EQ(*out,
            "// head\r\n.version 7.5\r\n.target sm_75, debug\r\n.address_size 64\r\n"
            "\t.section\t.debug_abbrev\r\n\t{\r\n.b8 1, 17, 0, 0, 0, 0\r\n\t}  // trailing\r\n"
            ".global .b32 gv;\r\n"
            "  .section .debug_str\r\n{\r\n.b8 104, 105, 0\r\n}\r\n"
            "/* between */ \r\n"
            ".section\t.debug_info\r\n\t{\r\n.b32 .debug_abbrev\r\n.b8 9\r\n\t}\r\n"
            "\t.section\t.debug_loc\r\n\t{\r\n.b8 0, 0\r\n\t}\r\n"
            "// tail\r\n");
  ptx::ReadResult again = ptx::read(*out, "out.ptx");
  ASSERT_TRUE(again.ok()) << errorsOf(again.diagnostics);
  EXPECT_EQ(again.module.section(".debug_abbrev")->blocks.size(), 1u);
  EXPECT_EQ(again.module.section(".debug_info")->bytes, repl[0].bytes);
  EXPECT_EQ(again.module.section(".debug_loc")->bytes, (std::vector<uint8_t>{0, 0}));
  EXPECT_EQ(again.module.section(".debug_str")->bytes, (std::vector<uint8_t>{104, 105, 0}));

  // Identity reformat of chapter6 in each style: same images, same non-section text.
  const std::string c6 = readFixture("chapter6.ptx");
  ptx::ReadResult m = ptx::read(c6, "chapter6.ptx");
  for (Style style : kStyles) {
    o.style = style;
    const auto re = write::reformat(c6, m.module, m.module.sections, o, diags);
    ASSERT_TRUE(re.has_value());
    ptx::ReadResult back = ptx::read(*re, "re.ptx");
    ASSERT_TRUE(back.ok());
    expectSameImages(m.module.sections, back.module.sections);
    const uint64_t first = m.module.sections.front().blocks.front().begin;
    EXPECT_EQ(re->substr(0, first), c6.substr(0, first));
  }
}

TEST(PtxWriter, ReformatReportsVersionProblemsWithTheModuleVersion) {
  const std::string text =
      ".version 6.5\n.target sm_75, debug\n.address_size 64\n.section .debug_info { .b8 1 }\n";
  ptx::ReadResult r = ptx::read(text, "t.ptx");
  ASSERT_TRUE(r.ok());
  std::vector<SectionImage> repl = r.module.sections;
  repl[0].labels.push_back({"$L__info_end", 1, {}});
  Diagnostics diags;
  EXPECT_FALSE(write::reformat(text, r.module, repl, {}, diags).has_value());
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_NE(diags.items[0].message.find("label '$L__info_end' at .debug_info+1"), std::string::npos);
  EXPECT_NE(diags.items[0].message.find("(target is 6.5)"), std::string::npos);
}

TEST(PtxWriter, StreamOutputEqualsStringOutput) {
  ptx::ReadResult r = ptx::read(ptxdwarf::testsupport::readFixture("chapter6.ptx"), "chapter6.ptx");
  ASSERT_TRUE(r.ok());
  Diagnostics diags;
  std::ostringstream os;
  ASSERT_TRUE(write::writeSections(os, r.module.sections, {}, diags));
  EXPECT_EQ(os.str(), write::writeSections(r.module.sections, {}, diags));
  EXPECT_NE(os.str().find(".section\t.debug_pubnames"), std::string::npos);
}

TEST(PtxWriter, StyleNames) {
  for (Style s : kStyles) EXPECT_EQ(write::parseStyle(write::styleName(s)), s);
  EXPECT_EQ(write::parseStyle("onePerLine"), Style::onePerLine);
  EXPECT_FALSE(write::parseStyle("compact").has_value());
}

// Issue 14, item 5: the text ends with a newline in every style, so it can be
// appended to PTX or written out as a file (POSIX text).
TEST(PtxWriter, OutputEndsWithANewline) {
  for (Style style : kStyles) {
    Diagnostics diags;
    std::string out = write::writeSections(handMade(), {.style = style, .version = version(7, 5)}, diags);
    ASSERT_FALSE(out.empty()) << errorsOf(diags);
    EXPECT_EQ(out.back(), '\n') << write::styleName(style);
    EXPECT_NE(out.substr(out.size() - 2), "\n\n") << write::styleName(style);
    std::string crlf = write::writeSections(handMade(), {.style = style, .version = version(7, 5), .crlf = true}, diags);
    EXPECT_EQ(crlf.substr(crlf.size() - 2), "\r\n") << write::styleName(style);
  }
}

// Issue 14, item 3: a misspelled label is not silent when the writer is given
// the module the sections go into (ptxas would write 0 there without a word).
TEST(PtxWriter, SymbolsMustBeDefinedInTheGivenModule) {
  const std::string code = ".version 7.5\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\nfunc_begin0:\n"
                           "\tret;\n}\n.global .u64 sym;\n";
  ptx::ReadResult r = ptx::read(code, "k.ptx");
  ASSERT_TRUE(r.ok()) << errorsOf(r.diagnostics);
  WriteOptions o{.version = version(7, 5), .module = &r.module};
  Diagnostics good;
  EXPECT_FALSE(write::writeSections(handMade(), o, good).empty()) << errorsOf(good);
  std::vector<SectionImage> misspelled = handMade();
  misspelled[0].relocations[1].symbol = "func_begn0";
  Diagnostics bad;
  EXPECT_TRUE(write::writeSections(misspelled, o, bad).empty());
  EXPECT_EQ(errorsOf(bad),
            "t.ptx: .debug_info+0x14: error: relocation 'func_begn0' at .debug_info+20: 'func_begn0' is not defined "
            "in the PTX module [ptx-write]\n");
  // Without a module the writer cannot know (the documented default).
  Diagnostics unknown;
  EXPECT_FALSE(write::writeSections(misspelled, {.version = version(7, 5)}, unknown).empty());
}

// Issue 14, item 3: a diagnostic with no PTX line (the sections a producer
// encoded have none) names the section offset instead of ":0:0:".
TEST(Diagnostic, WithoutALineTheSectionOffsetIsThePosition) {
  Diagnostic d{Severity::error, {}, "bad", "ptx-write", ".debug_info", 40};
  EXPECT_EQ(d.format("out.ptx"), "out.ptx: .debug_info+0x28: error: bad [ptx-write]");
  d.section.clear();
  EXPECT_EQ(d.format("out.ptx"), "out.ptx: error: bad [ptx-write]");
  d.loc = {3, 7};
  EXPECT_EQ(d.format("out.ptx"), "out.ptx:3:7: error: bad [ptx-write]");
}

// A section of megabytes is rendered in parts on two threads, cut at
// relocations; the text is the one-thread text, labels at the cuts included.
TEST(PtxWriter, ALargeSectionRenderedInPartsIsTheSameText) {
  std::vector<uint8_t> bytes(3u << 20);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  SectionImage s = image(".debug_info", bytes);
  for (uint64_t o = 100; o + 8 < s.bytes.size(); o += 997) {
    const uint8_t size = (o / 997) % 2 ? 8 : 4;
    for (uint64_t k = 0; k < size; ++k) s.bytes[o + k] = 0;
    static const SymbolName kNames[] = {"a", "b", ".debug_abbrev", "func_begin0"};  // a Relocation views its name
    s.relocations.push_back(reloc(static_cast<uint32_t>(o), size, kNames[o % 4]));
  }
  // Two labels at every relocation (so at every cut), one inside some
  // stretches of data, and one at the end.
  s.labels.push_back({"$L__first", 0, {}});
  for (size_t i = 0; i < s.relocations.size(); ++i) {
    const std::string n = std::to_string(i);
    s.labels.push_back({"$L__r" + n, s.relocations[i].offset, {}});
    s.labels.push_back({"$L__s" + n, s.relocations[i].offset, {}});
    if (i % 7 == 0) s.labels.push_back({"$L__m" + n, s.relocations[i].offset + 15, {}});
  }
  s.labels.push_back({"$L__end", s.bytes.size(), {}});
  for (Style style : {Style::packed, Style::onePerLine, Style::dense}) {
    std::string texts[2];
    for (unsigned threads : {1u, 2u}) {
      WriteOptions o;
      o.version = version(7, 5);
      o.style = style;
      o.threads = threads;
      Diagnostics diags;
      size_t pieces = 0;
      ASSERT_TRUE(write::streamSections(
          [&](std::string_view piece) {
            texts[threads - 1].append(piece);
            ++pieces;
          },
          std::span<const SectionImage>(&s, 1), o, diags))
          << errorsOf(diags);
      EXPECT_GT(pieces, 2u);
    }
    EXPECT_EQ(texts[0].size(), texts[1].size());
    EXPECT_TRUE(texts[0] == texts[1]) << write::styleName(style);
    EXPECT_NE(texts[1].find("\n$L__r1000:\n$L__s1000:\n.b"), std::string::npos);
    EXPECT_NE(texts[1].find("\n$L__end:\n\t}"), std::string::npos);
  }
}

// reformat() to a sink: the text of the string form, in pieces of a few
// megabytes at most except views of the input's own runs, and nothing
// handed over when the images are refused.
TEST(PtxWriter, StreamedReformatIsTheStringFormInPieces) {
  // A large .debug_info (rendered in parts, in place: not indented), a
  // second block of it (removed), a kept section, and .debug_loc, which the
  // text does not have (appended after the last block).
  std::vector<uint8_t> bytes(3u << 20);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  SectionImage info = image(".debug_info", bytes);
  for (uint64_t o = 100; o + 8 < info.bytes.size(); o += 997) {
    for (uint64_t k = 0; k < 4; ++k) info.bytes[o + k] = 0;
    info.relocations.push_back(reloc(static_cast<uint32_t>(o), 4, ".debug_abbrev"));
  }
  const std::string code(3u << 20, ' ');  // a run of the text longer than a piece
  const std::string text = ".version 7.5\n.target sm_75, debug\n.address_size 64\n// " + code +
                           "\n.section .debug_info { .b8 1 }\n.section .debug_str { .b8 104, 0 }\n"
                           ".section .debug_info { .b8 2 }\n// tail\n";
  ptx::ReadResult r = ptx::read(text, "t.ptx");
  ASSERT_TRUE(r.ok()) << errorsOf(r.diagnostics);
  const std::vector<SectionImage> images = {info, image(".debug_loc", {0, 0})};
  for (Style style : kStyles) {
    for (unsigned threads : {1u, 2u}) {
      WriteOptions o;
      o.style = style;
      o.threads = threads;
      Diagnostics diags;
      const std::optional<std::string> whole = write::reformat(text, r.module, images, o, diags);
      ASSERT_TRUE(whole.has_value()) << errorsOf(diags);
      std::string streamed;
      size_t pieces = 0, views = 0;
      ASSERT_TRUE(write::reformat(text, r.module, images, o, diags, [&](std::string_view piece) {
        const bool view = piece.data() >= text.data() && piece.data() + piece.size() <= text.data() + text.size();
        views += view;
        ++pieces;
        EXPECT_FALSE(piece.empty());
        // Made text comes in pieces of about 1 MB, or a part of a large
        // section rendered on the second thread: 512 KB of it, up to 8
        // characters a byte (one per line).
        if (!view) {
          EXPECT_LE(piece.size(), size_t{5} << 20) << "a piece of made text, " << write::styleName(style);
        }
        streamed.append(piece);
      }));
      EXPECT_EQ(streamed.size(), whole->size()) << write::styleName(style) << " threads " << threads;
      EXPECT_TRUE(streamed == *whole) << write::styleName(style) << " threads " << threads;
      EXPECT_EQ(views, 1u) << "the 3 MB comment goes out as a view of the text";
      EXPECT_GT(pieces, 3u);
    }
  }
  // Refused (a label in a section needs PTX 7.0): nothing handed over.
  const std::string old = ".version 6.5\n.target sm_75, debug\n.address_size 64\n.section .debug_info { .b8 1 }\n";
  ptx::ReadResult r65 = ptx::read(old, "t.ptx");
  ASSERT_TRUE(r65.ok());
  std::vector<SectionImage> labelled = r65.module.sections;
  labelled[0].labels.push_back({"$L__info_end", 1, {}});
  Diagnostics diags;
  size_t handed = 0;
  EXPECT_FALSE(write::reformat(old, r65.module, labelled, {}, diags, [&](std::string_view) { ++handed; }));
  EXPECT_EQ(handed, 0u);
  EXPECT_EQ(diags.errorCount(), 1u);
}
