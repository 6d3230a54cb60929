// SectionImage's supporting structures: the source map's compact encoding
// against a plain list, and the string store's lifetime rules.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>

#include "position_encodings.h"
#include "ptxdwarf/section.h"

namespace ptxdwarf {
namespace {

struct Entry {
  uint32_t offset, line, col;
};

// The answer SourceMap::locate must give, from the plain list.
SourceLoc naiveLocate(const std::vector<Entry>& entries, uint64_t offset, SourceLoc fallback) {
  SourceLoc found = fallback;
  for (const Entry& e : entries) {
    if (e.offset > offset) break;
    found = {e.line, e.col};
  }
  return found;
}

TEST(SourceMap, AgreesWithAPlainListOnShortAndLongEntries) {
  std::mt19937 random(7);
  std::vector<Entry> entries;
  Entry e{0, 10, 5};
  for (int i = 0; i < 5000; ++i) {
    // Mostly what producers write (next byte on the next line, or the next
    // operand of a list), sometimes large steps in every field.
    switch (random() % 6) {
      case 0: e = {e.offset + 1, e.line + 1, 5}; break;
      case 1: e = {e.offset + 1, e.line, e.col + 4}; break;
      case 2: e = {e.offset + 8, e.line + 1, 6}; break;
      case 3: e = {e.offset + 4, e.line + static_cast<uint32_t>(random() % 3), 1 + static_cast<uint32_t>(random() % 300)}; break;
      case 4: e = {e.offset + static_cast<uint32_t>(random() % 100000), e.line + static_cast<uint32_t>(random() % 100000), 17}; break;
      default: e = {e.offset + 2, e.line, e.col + 15}; break;
    }
    entries.push_back(e);
  }
  SourceMap map;
  for (const Entry& x : entries) SourceMapEncoding::add(map, x.offset, x.line, x.col);
  ASSERT_EQ(map.size(), entries.size());
  const SourceLoc fallback{1, 1};
  for (const Entry& x : entries) {
    for (uint64_t probe : {uint64_t{x.offset}, uint64_t{x.offset} + 1}) {
      SourceLoc want = naiveLocate(entries, probe, fallback);
      SourceLoc got = map.locate(probe, fallback);
      ASSERT_EQ(got.line, want.line) << "offset " << probe;
      ASSERT_EQ(got.col, want.col) << "offset " << probe;
    }
  }
  EXPECT_EQ(map.locate(0, fallback).line, entries.front().offset == 0 ? entries.front().line : 1u);
  EXPECT_EQ(map.last().line, entries.back().line);
}

// A run of `.b8 N` lines given at once (addLines) is stored as the same
// entries given one by one: the same encoding and the same answers, whatever
// came before the run (a run of another step, a long entry, a checkpoint),
// however long it is (past a repeat byte's 127), at columns past 15 too.
TEST(SourceMap, LinesAddedAtOnceAreStoredAsOneByOne) {
  std::mt19937 random(5);
  SourceMap byOne, atOnce;
  std::vector<Entry> entries;
  Entry e{0, 2, 3};
  auto addOne = [&](Entry x) {
    SourceMapEncoding::add(byOne, x.offset, x.line, x.col);
    SourceMapEncoding::add(atOnce, x.offset, x.line, x.col);
    entries.push_back(e = x);
  };
  addOne(e);
  for (int round = 0; round < 3000; ++round) {
    switch (random() % 4) {
      case 0: addOne({e.offset + 1, e.line, e.col + 2}); break;               // a list on one line
      case 1: addOne({e.offset + 8, e.line + 1, 7}); break;                   // `.b64 label`
      case 2: addOne({e.offset + 1 + static_cast<uint32_t>(random() % 90), e.line + 3, 30}); break;  // long
      default: {
        const uint32_t count = static_cast<uint32_t>(random() % 600), col = random() % 8 == 0 ? 20 : 5;
        const Entry first{e.offset + 1, e.line + 1, col};
        for (uint32_t i = 0; i < count; ++i) {
          SourceMapEncoding::add(byOne, first.offset + i, first.line + i, col);
          entries.push_back(e = {first.offset + i, first.line + i, col});
        }
        SourceMapEncoding::addLines(atOnce, first.offset, first.line, col, count);
      }
    }
  }
  ASSERT_EQ(atOnce.size(), byOne.size());
  ASSERT_EQ(atOnce.size(), entries.size());
  EXPECT_EQ(atOnce.encodedBytes(), byOne.encodedBytes());
  EXPECT_EQ(atOnce.last().line, byOne.last().line);
  EXPECT_EQ(atOnce.last().col, byOne.last().col);
  const SourceLoc fallback{1, 1};
  size_t next = 0;
  for (uint64_t probe = 0; probe <= entries.back().offset + 2; ++probe) {
    while (next + 1 < entries.size() && entries[next + 1].offset <= probe) ++next;
    const SourceLoc got = atOnce.locate(probe, fallback);
    ASSERT_EQ(got.line, entries[next].line) << "offset " << probe;
    ASSERT_EQ(got.col, entries[next].col) << "offset " << probe;
  }
}

// nvcc's sections: runs of thousands of `.b8 N` lines (the same one-byte
// delta), broken by other entries. Every offset, on and between entries,
// locates as the plain list says, and the runs take almost nothing.
TEST(SourceMap, RunsOfTheSameStepLocateExactlyAndTakeLittle) {
  std::mt19937 random(11);
  std::vector<Entry> entries;
  Entry e{0, 3, 1};
  entries.push_back(e);
  while (entries.size() < 200000) {
    const uint32_t run = 1 + static_cast<uint32_t>(random() % 3000);
    switch (random() % 4) {
      case 0:  // `.b8 N` line after line
        for (uint32_t i = 0; i < run; ++i) entries.push_back(e = {e.offset + 1, e.line + 1, 6});
        break;
      case 1:  // `.b64 label` line after line
        for (uint32_t i = 0; i < run; ++i) entries.push_back(e = {e.offset + 8, e.line + 1, 7});
        break;
      case 2:  // `.b8 1,2,3,...` on one line
        for (uint32_t i = 0; i < run % 200; ++i) entries.push_back(e = {e.offset + 1, e.line, e.col + 3});
        break;
      default:  // something else: a long entry
        entries.push_back(e = {e.offset + 1 + static_cast<uint32_t>(random() % 50), e.line + 2, 40});
    }
  }
  SourceMap map;
  for (const Entry& x : entries) SourceMapEncoding::add(map, x.offset, x.line, x.col);
  ASSERT_EQ(map.size(), entries.size());
  const SourceLoc fallback{1, 1};
  size_t next = 0;  // the plain list's answer, walked along with the probes
  for (uint64_t probe = 0; probe <= entries.back().offset + 3; ++probe) {
    while (next + 1 < entries.size() && entries[next + 1].offset <= probe) ++next;
    const SourceLoc got = map.locate(probe, fallback);
    ASSERT_EQ(got.line, entries[next].line) << "offset " << probe;
    ASSERT_EQ(got.col, entries[next].col) << "offset " << probe;
  }
  EXPECT_LT(map.encodedBytes(), entries.size() / 8);  // a byte an entry before runs were encoded
}

TEST(StringStore, KeptNamesOutliveTheStoreThroughCopies) {
  std::string_view kept;
  SectionImage copy;
  {
    SectionImage image;
    std::string temporary = "$L__func_begin12345";
    image.addRelocation(0, 8, temporary, {}, 0);
    temporary.assign(temporary.size(), 'x');  // the view must not see the caller's buffer
    copy = image;
    kept = image.relocations[0].symbol;
  }
  EXPECT_EQ(copy.relocations[0].symbol, "$L__func_begin12345");
  EXPECT_EQ(kept.data(), copy.relocations[0].symbol.data());
  // The copy writes new names into a chunk of its own: the shared chunk's
  // tail is not written twice.
  copy.addRelocation(8, 4, "second");
  EXPECT_EQ(copy.relocations[1].symbol, "second");
  EXPECT_EQ(copy.relocations[0].symbol, "$L__func_begin12345");
  EXPECT_EQ(copy.relocations[1].symbol.data()[6], '\0');  // NUL-terminated for C callers
}

TEST(StringStore, LongNamesGetAChunkOfTheirOwn) {
  StringStore store;
  std::string huge(100000, 'a');
  std::string_view a = store.keep("short");
  std::string_view b = store.keep(huge);
  std::string_view c = store.keep("after");
  EXPECT_EQ(a, "short");
  EXPECT_EQ(b, huge);
  EXPECT_EQ(c, "after");
  EXPECT_TRUE(store.keep("").empty());
}

// A kept name compared with a view: equal only to exactly its characters,
// whatever the view's length (a prefix, a longer name, an embedded NUL).
TEST(SymbolName, ComparesWithViewsOfEveryLength) {
  StringStore store;
  const SymbolName name = SymbolName::fromKept(store.keep("$L__tmp12"));
  EXPECT_TRUE(name == std::string_view("$L__tmp12"));
  EXPECT_FALSE(name == std::string_view("$L__tmp1"));
  EXPECT_FALSE(name == std::string_view("$L__tmp123"));
  EXPECT_FALSE(name == std::string_view("$L__tmp13"));
  EXPECT_FALSE(name == std::string_view(""));
  EXPECT_FALSE(name == std::string_view("$L__tmp12\0x", 11));
  EXPECT_FALSE(name == std::string_view("$L__tmp12\0", 10));
  EXPECT_TRUE(SymbolName() == std::string_view(""));
  EXPECT_FALSE(SymbolName() == std::string_view("a"));
  // The last name of a chunk: nothing past its NUL is read (ASan holds it).
  StringStore tight;
  const std::string longName(40000, 'x');
  const SymbolName last = SymbolName::fromKept(tight.keep(longName));
  EXPECT_TRUE(last == std::string_view(longName));
  EXPECT_FALSE(last == std::string_view(longName + "y"));
}

// Names and C strings compare up to the first difference, without being
// measured: equal characters, a prefix either way, the empty name.
TEST(SymbolName, ComparesWithNamesAndCStrings) {
  StringStore store;
  const SymbolName loc = SymbolName::fromKept(store.keep(".debug_loc"));
  const SymbolName again = SymbolName::fromKept(store.keep(".debug_loc"));
  EXPECT_TRUE(loc == again);
  EXPECT_TRUE(loc == SymbolName(".debug_loc"));
  EXPECT_FALSE(loc == SymbolName(".debug_lo"));
  EXPECT_FALSE(loc == SymbolName(".debug_locx"));
  EXPECT_FALSE(loc == SymbolName());
  EXPECT_TRUE(SymbolName() == SymbolName(""));
  EXPECT_TRUE(loc == ".debug_loc");
  EXPECT_TRUE(loc != ".debug_str");
  EXPECT_FALSE(loc == ".debug_lo");
  EXPECT_FALSE(loc == ".debug_loc+");
  EXPECT_FALSE(loc == "");
  const char* none = nullptr;
  EXPECT_FALSE(loc == none);
  EXPECT_TRUE(SymbolName() == "");
  EXPECT_TRUE(SymbolName() == none);
  EXPECT_FALSE(SymbolName() == "a");
}

TEST(SectionImage, ANameOfTheLastTwoRelocationsIsKeptOnce) {
  // A location list's labels chain: [a, b) [b, c) ...; a difference names
  // two, kept together (the second after the first's NUL). Names seen in the
  // last two relocations are shared, not kept again, and every relocation
  // still reads as written.
  SectionImage image;
  image.addRelocation(0, 8, "$L__a");
  image.addRelocation(8, 8, "$L__b");
  image.addRelocation(16, 8, "$L__b");            // the last one's
  image.addRelocation(24, 8, "$L__c");
  image.addRelocation(32, 8, "$L__b");            // the one before the last
  image.addRelocation(40, 4, "$L__d", "$L__c");   // a difference: its two names kept together
  image.addRelocation(44, 4, "$L__c", "", 12);    // the last one's minus, but with an addend: kept with it
  image.addRelocation(48, 8, "$L__a");            // further back: kept again
  const std::vector<Relocation>& r = image.relocations;
  const std::vector<std::string> expected = {"$L__a", "$L__b", "$L__b", "$L__c", "$L__b", "$L__d-$L__c", "$L__c+12", "$L__a"};
  ASSERT_EQ(r.size(), expected.size());
  for (size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i].expression(), expected[i]) << i;
  EXPECT_EQ(r[2].symbol.data(), r[1].symbol.data());
  EXPECT_EQ(r[4].symbol.data(), r[1].symbol.data());
  EXPECT_TRUE(r[5].isDifference());
  EXPECT_EQ(r[5].symbol, "$L__d");
  EXPECT_EQ(r[5].minus(), "$L__c");
  EXPECT_EQ(r[5].minus().data(), r[5].symbol.data() + r[5].symbol.size() + 1);
  EXPECT_NE(r[6].symbol.data(), r[5].minus().data());
  EXPECT_FALSE(r[6].isDifference());
  EXPECT_EQ(r[6].addend(), 12);
  EXPECT_NE(r[7].symbol.data(), r[0].symbol.data());
  EXPECT_TRUE(r[0].minus().empty());
}

TEST(SectionImage, WhatARelocationKeepsAfterItsNameReadsBackAsAdded) {
  // A difference's second name and an addend are kept after the symbol's
  // characters; a relocation holds only a flag for each. Every combination,
  // addends at the limits of their width, and an empty symbol.
  const int64_t addends[] = {0, 1, -1, 12, INT32_MAX, int64_t{INT32_MAX} + 1, INT64_MAX, INT64_MIN};
  const std::string_view minuses[] = {"", "$L__begin"};
  const std::string_view symbols[] = {"$L__end", ".debug_loc", ""};
  SectionImage image;
  struct Added {
    std::string_view symbol, minus;
    int64_t addend;
  };
  std::vector<Added> added;
  for (std::string_view symbol : symbols)
    for (std::string_view minus : minuses)
      for (int64_t addend : addends) {
        image.addRelocation(added.size() * 8, 8, symbol, minus, addend);
        added.push_back({symbol, minus, addend});
      }
  const std::vector<Relocation> copies = image.relocations;  // a copy reads as the original while the names live
  for (const std::vector<Relocation>* relocations : {&std::as_const(image.relocations), &copies}) {
    ASSERT_EQ(relocations->size(), added.size());
    for (size_t i = 0; i < added.size(); ++i) {
      const Relocation& r = (*relocations)[i];
      EXPECT_EQ(r.offset, i * 8);
      EXPECT_EQ(r.size, 8);
      EXPECT_EQ(r.symbol, added[i].symbol) << i;
      EXPECT_EQ(r.symbol.empty(), added[i].symbol.empty()) << i;
      EXPECT_EQ(r.isDifference(), !added[i].minus.empty()) << i;
      EXPECT_EQ(r.minus(), added[i].minus) << i;
      EXPECT_EQ(r.addend(), added[i].addend) << i;
    }
  }
  EXPECT_EQ(image.relocations[2].expression(), "$L__end-1");
  EXPECT_EQ(image.relocations[8 + 3].expression(), "$L__end-$L__begin+12");
  EXPECT_EQ(image.relocations[16 + 7].expression(), ".debug_loc-9223372036854775808");
  // The empty symbol equals every other empty name, kept with a tail or not.
  EXPECT_EQ(image.relocations[32 + 1].symbol, SymbolName());
  EXPECT_EQ(SymbolName(), image.relocations[32 + 1].symbol);
  static_assert(sizeof(void*) != 8 || sizeof(Relocation) == 16);
}

}  // namespace
}  // namespace ptxdwarf

namespace ptxdwarf {
namespace {

// RelocationCursor::at answers as SectionImage::relocationAt does, whatever
// the order of the lookups: forward by a field or two (its inline step),
// forward by many, back, and at offsets inside or between relocations.
TEST(RelocationCursor, AgreesWithRelocationAtInEveryOrderOfLookups) {
  std::mt19937 random(11);
  for (int round = 0; round < 40; ++round) {
    SectionImage image;
    image.name = ".debug_loc";
    uint64_t offset = random() % 3;
    const int count = static_cast<int>(random() % 60);
    for (int i = 0; i < count; ++i) {
      const uint8_t size = random() % 2 ? 8 : 4;
      image.addRelocation(offset, size, "$L__tmp" + std::to_string(i), {}, 0);
      offset += size + (random() % 3 == 0 ? random() % 12 : 0);  // fields side by side, or bytes between
    }
    image.bytes.resize(offset + 16);
    RelocationCursor cursor(image);
    uint64_t at = 0;
    for (int lookup = 0; lookup < 400; ++lookup) {
      switch (random() % 6) {
        case 0: at = random() % (offset + 8); break;  // anywhere, back included
        case 1: at += random() % 40; break;           // forward by many
        default: at += random() % 2 ? 4 : 8; break;   // the next field or so
      }
      const uint8_t size = random() % 2 ? 8 : 4;
      EXPECT_EQ(cursor.at(at, size), image.relocationAt(at, size))
          << "round " << round << ", lookup " << lookup << " at " << at << " size " << int(size);
    }
  }
}

}  // namespace
}  // namespace ptxdwarf
