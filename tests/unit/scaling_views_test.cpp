// The scaling tests of the views: type layouts and names, lookup's
// expressions, scopes and files (scaling_test.cpp says how they count).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/lookup.h"
#include "ptxdwarf/view/types.h"
#include "work.h"
#include "scaling.h"

using namespace ptxdwarf;
using namespace ptxdwarf::scaling;

namespace {

// n structure types N0 { N1 { ... } }, each nested in the last.
std::string nestedStructs(size_t n) {
  std::string text = kHeader;
  // 1: compile_unit, children; 2: structure_type, children, name string, byte_size data1.
  text += ".section .debug_abbrev {\n.b8 1, 17, 1, 0, 0, 2, 19, 1, 3, 8, 11, 11, 0, 0, 0\n}\n";
  std::string body = ".b8 1\n";
  size_t bytes = 1;
  for (size_t i = 0; i < n; ++i) {
    const std::string name = "N" + std::to_string(i);
    body += ".b8 2";
    for (char c : name) body += ", " + std::to_string(static_cast<unsigned char>(c));
    body += ", 0, 1\n";
    bytes += name.size() + 3;
  }
  body += bytesLines(std::vector<uint32_t>(n + 1, 0));
  return text + unit(bytes + n + 1, body);
}

struct TypesRun {
  uint64_t steps = 0;      // children and scopes visited
  size_t nameBytes = 0;    // of all the types' names
  std::vector<std::string> names;
};

TypesRun typesOfNestedStructs(size_t n) {
  const std::string text = nestedStructs(n);
  ptx::ReadResult r = ptx::read(text, "t.ptx");
  EXPECT_TRUE(r.ok());
  read::Dwarf dwarf = read::decode(r.module.sections);
  work::reset();
  TypesRun run;
  for (view::TypeLayout& t : view::typeLayouts(dwarf)) {
    run.nameBytes += t.name.size();
    run.names.push_back(std::move(t.name));
  }
  run.steps = work::steps(work::siblingScan) + work::steps(work::qualifiedName);
  EXPECT_EQ(run.names.size(), n);
  return run;
}

}  // namespace

TEST(Scaling, TypesNestedDeep) {
  // Each type's members were found by walking its whole subtree, and its
  // name walked every enclosing scope to the unit: 1,000 nested structs
  // 0.28 s, 4,000 2.4 s.
  const TypesRun small = typesOfNestedStructs(1000), large = typesOfNestedStructs(4000);
  std::printf("steps at n = 1000: %llu, at 4n: %llu (x%.2f); names %zu -> %zu bytes\n",
              static_cast<unsigned long long>(small.steps), static_cast<unsigned long long>(large.steps),
              static_cast<double>(large.steps) / static_cast<double>(small.steps), small.nameBytes, large.nameBytes);
  ASSERT_GT(small.steps, 0u);
  EXPECT_LE(large.steps, 5 * small.steps);
  EXPECT_LE(large.nameBytes, 5 * small.nameBytes);
  // 64 enclosing scopes are spelled whole; a type nested deeper says that
  // the outer ones are left out (they used to vanish: "::N2::N3::...").
  std::string whole = "N0";
  for (int i = 1; i <= 64; ++i) whole += "::N" + std::to_string(i);
  EXPECT_EQ(small.names[64], whole);
  EXPECT_EQ(small.names[65], "(enclosing scopes left out)::" + whole.substr(4) + "::N65");
  EXPECT_TRUE(small.names[999].starts_with("(enclosing scopes left out)::N935::N936::")) << small.names[999];
  EXPECT_TRUE(small.names[999].ends_with("::N998::N999"));
}

namespace {

// A kernel `k` of one instruction at a.cu:1, whose subprogram holds a
// variable `v` at DW_OP_regx %r1 followed by n of `op` (DW_OP_deref,
// DW_OP_stack_value).
std::string derefChain(size_t n, uint8_t op) {
  std::string text = std::string(kHeader) +
                     ".file 1 \"a.cu\"\n.visible .entry k()\n{\n.reg .b32 %r<2>;\n$L__b:\n.loc 1 1 1\nmov.u32 %r1, 1;\n"
                     "ret;\n$L__e:\n}\n";
  // 1: compile_unit, children; 2: subprogram, children, name string, low_pc, high_pc;
  // 3: variable, name string, location block4.
  text += ".section .debug_abbrev {\n.b8 1, 17, 1, 0, 0, 2, 46, 1, 3, 8, 17, 1, 18, 1, 0, 0, 3, 52, 0, 3, 8, 2, 4, "
          "0, 0, 0\n}\n";
  const std::vector<uint32_t> regx = {0x90, 0xb1, 0xe4, 0x95, 0x01};  // DW_OP_regx, ULEB128 of 0x257231 ("%r1")
  std::vector<uint32_t> expr = regx;
  expr.insert(expr.end(), n, op);
  std::string body = ".b8 1, 2, 107, 0\n.b64 $L__b, $L__e\n.b8 3, 118, 0\n.b32 " + std::to_string(expr.size()) + "\n" +
                     bytesLines(expr) + ".b8 0, 0\n";
  return text + unit(4 + 16 + 3 + 4 + expr.size() + 2, body);
}

struct LookupRun {
  uint64_t steps = 0;
  view::LookupResult result;
};

LookupRun lookupSteps(work::Pass pass, const std::string& text, std::string_view at) {
  ptx::ReadResult r = ptx::read(text, "t.ptx");
  EXPECT_TRUE(r.ok()) << (r.diagnostics.items.empty() ? "" : r.diagnostics.items[0].message);
  read::Dwarf dwarf = read::decode(r.module.sections);
  work::reset();
  LookupRun run;
  run.result = view::lookup(r.module, dwarf, at);
  run.steps = work::steps(pass);
  EXPECT_TRUE(run.result.error.empty()) << run.result.error;
  return run;
}

void expectLookupLinear(work::Pass pass, const std::function<std::string(size_t)>& make, size_t n,
                        std::string_view at) {
  const uint64_t small = lookupSteps(pass, make(n), at).steps, large = lookupSteps(pass, make(4 * n), at).steps;
  std::printf("steps at n = %zu: %llu, at 4n: %llu (x%.2f)\n", n, static_cast<unsigned long long>(small),
              static_cast<unsigned long long>(large), static_cast<double>(large) / static_cast<double>(small));
  ASSERT_GT(small, 0u) << "the pass did not run";
  EXPECT_LE(large, 5 * small) << "n: " << small << " steps, 4n: " << large;
}

}  // namespace

TEST(Scaling, LookupOfALongDerefChain) {
  // Each DW_OP_deref (and DW_OP_stack_value) copied the text so far: 40,000
  // of them 0.36 s, 160,000 5.2 s.
  for (uint8_t op : {uint8_t{0x06}, uint8_t{0x9f}}) {
    expectLookupLinear(work::locationText, [op](size_t n) { return derefChain(n, op); }, 10000, "a.cu:1");
    const LookupRun run = lookupSteps(work::locationText, derefChain(3, op), "a.cu:1");
    ASSERT_EQ(run.result.matches.size(), 1u);
    ASSERT_EQ(run.result.matches[0].variables.size(), 1u);
    EXPECT_EQ(run.result.matches[0].variables[0].location, op == 0x06 ? "*(*(*(%r1)))" : "value value value %r1");
  }
}

namespace {

// A kernel `k` of n instructions, each after a `.loc` of a.cu:1 and each in
// a lexical block of its own.
std::string siblingBlocksOnOneLine(size_t n) {
  std::string text = std::string(kHeader) + ".file 1 \"a.cu\"\n.visible .entry k()\n{\n.reg .b32 %r<2>;\n$L__b:\n";
  for (size_t i = 0; i < n; ++i)
    text += "$L__x" + std::to_string(i) + ":\n.loc 1 1 1\nmov.u32 %r1, " + std::to_string(i) + ";\n";
  text += "$L__x" + std::to_string(n) + ":\nret;\n$L__e:\n}\n";
  // 1: compile_unit, children; 2: subprogram, children, name, low_pc, high_pc; 3: lexical_block, low_pc, high_pc.
  text += ".section .debug_abbrev {\n.b8 1, 17, 1, 0, 0, 2, 46, 1, 3, 8, 17, 1, 18, 1, 0, 0, 3, 11, 0, 17, 1, 18, 1, "
          "0, 0, 0\n}\n";
  std::string body = ".b8 1, 2, 107, 0\n.b64 $L__b, $L__e\n";
  for (size_t i = 0; i < n; ++i) body += ".b8 3\n.b64 $L__x" + std::to_string(i) + ", $L__x" + std::to_string(i + 1) + "\n";
  return text + unit(4 + 16 + 17 * n + 2, body + ".b8 0, 0\n");
}

// n `.file`s d<i>/a.cu and a kernel of n instructions, the i-th after a `.loc` of file i, line 1.
std::string filesOfOneName(size_t n) {
  std::string text = kHeader;
  for (size_t i = 1; i <= n; ++i) text += ".file " + std::to_string(i) + " \"d" + std::to_string(i) + "/a.cu\"\n";
  text += ".visible .entry k()\n{\n.reg .b32 %r<2>;\n";
  for (size_t i = 1; i <= n; ++i) text += ".loc " + std::to_string(i) + " 1 1\nmov.u32 %r1, 1;\n";
  return text + "ret;\n}\n";
}

}  // namespace

TEST(Scaling, LookupOfSiblingBlocksOnOneLine) {
  // Every place tried every scope of its function: 8,000 blocks 0.13 s,
  // 32,000 1.6 s.
  expectLookupLinear(work::scopeLookup, siblingBlocksOnOneLine, 2000, "a.cu:1");
  const LookupRun run = lookupSteps(work::scopeLookup, siblingBlocksOnOneLine(50), "a.cu:1");
  ASSERT_EQ(run.result.matches.size(), 50u);  // one per block
  for (size_t i = 0; i < 50; ++i) {
    const view::Match& m = run.result.matches[i];
    ASSERT_EQ(m.scopes.size(), 2u);
    EXPECT_EQ(m.scopes[0].tag, dw::DW_TAG_lexical_block);
    EXPECT_EQ(m.scopes[1].tag, dw::DW_TAG_subprogram);
    EXPECT_EQ(m.scopes[0].die, 11 + 4 + 16 + 17 * i) << i;  // the block of its own instruction
    EXPECT_EQ(m.instructions.size(), 1u);
  }
}

TEST(Scaling, LookupOfManyFilesOfOneName) {
  // Every `.loc` searched the list of the files the name matched: 10,000
  // of them 0.07 s, 40,000 0.6 s.
  expectLookupLinear(work::fileLookup, filesOfOneName, 2000, "a.cu:1");
  const LookupRun all = lookupSteps(work::fileLookup, filesOfOneName(30), "a.cu:1");
  ASSERT_EQ(all.result.matches.size(), 1u);
  EXPECT_EQ(all.result.matches[0].instructions.size(), 30u);
  const LookupRun one = lookupSteps(work::fileLookup, filesOfOneName(30), "d17/a.cu:1");
  ASSERT_EQ(one.result.matches.size(), 1u);
  EXPECT_EQ(one.result.matches[0].instructions, std::vector<uint32_t>{16});
}

namespace {

// struct S { S *m; ... n times }: every member's type name spells S, whose
// template parameters are looked for among its children.
std::string wideSelfReferentialStruct(size_t n) {
  std::string text = kHeader;
  // 1: compile_unit, children; 2: structure_type, children, name, byte_size data1;
  // 3: member, name, type ref4, data_member_location data1; 4: pointer_type, type ref4, byte_size data1.
  text += ".section .debug_abbrev {\n.b8 1, 17, 1, 0, 0, 2, 19, 1, 3, 8, 11, 11, 0, 0, 3, 13, 0, 3, 8, 73, 19, 56, "
          "11, 0, 0, 4, 15, 0, 73, 19, 11, 11, 0, 0, 0\n}\n";
  const size_t pointer = 12 + 4 + 8 * n + 1;
  std::string body = ".b8 1, 2, 83, 0, 8\n";
  for (size_t i = 0; i < n; ++i) body += ".b8 3, 109, 0\n.b32 " + std::to_string(pointer) + "\n.b8 0\n";
  body += ".b8 0, 4\n.b32 12\n.b8 8, 0\n";
  return text + unit(1 + 4 + 8 * n + 1 + 6 + 1, body);
}

}  // namespace

TEST(Scaling, TypesOfAWideSelfReferentialStruct) {
  // 5,000 members 0.7 s, 20,000 8.9 s (and as long for `dump`, which names
  // each member's type).
  auto steps = [](size_t n) {
    const std::string text = wideSelfReferentialStruct(n);
    ptx::ReadResult r = ptx::read(text, "t.ptx");
    EXPECT_TRUE(r.ok());
    read::Dwarf dwarf = read::decode(r.module.sections);
    EXPECT_FALSE(dwarf.diagnostics.hasErrors());
    work::reset();
    const std::vector<view::TypeLayout> types = view::typeLayouts(dwarf);
    EXPECT_EQ(types.size(), 2u);
    if (!types.empty() && !types[0].members.empty()) {
      EXPECT_EQ(types[0].members.size(), n);
      EXPECT_EQ(types[0].members.back().type, "S *");
    }
    return work::steps(work::siblingScan);
  };
  const uint64_t small = steps(1000), large = steps(4000);
  std::printf("children visited at n = 1000: %llu, at 4n: %llu (x%.2f)\n", static_cast<unsigned long long>(small),
              static_cast<unsigned long long>(large), static_cast<double>(large) / static_cast<double>(small));
  ASSERT_GT(small, 0u);
  EXPECT_LE(large, 5 * small);
}
