// `ptxdump types` against the host compiler: fixtures/types/layouts.h is
// compiled for the device (nvcc -G, clang -g) and for the host (g++); every
// struct, class and union the DWARF describes is looked up on the host by a
// generated program that prints sizeof, offsetof and the size of each member,
// each base subobject's offset, and each bit field's first bit and width
// (found by setting the field to all ones in a zeroed object). Every figure
// must agree, and every declaration of the header must have been seen.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "corpus.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/types.h"
#include "missing_tool.h"

using namespace ptxdwarf::testsupport;
using ptxdwarf::view::TypeKind;
using ptxdwarf::view::TypeLayout;

namespace {

constexpr const char* kCudaInclude = "/usr/local/cuda/include";

// nvcc 13 -G writes no DW_TAG_namespace: its types carry their unqualified
// names. The host needs the qualified ones.
const std::map<std::string, std::string> kNvccUnqualified = {
    {"Vec3", "geo::Vec3"}, {"Box", "geo::inner::Box"}, {"Inner", "Outer::Inner"}};

bool isAggregate(const TypeLayout& t) {
  return t.kind == TypeKind::structure || t.kind == TypeKind::class_ || t.kind == TypeKind::union_;
}

std::string hostName(const std::string& name, bool nvcc) {
  if (nvcc)
    if (auto it = kNvccUnqualified.find(name); it != kNvccUnqualified.end()) return it->second;
  return name;
}

// One line per figure: "<key> <value>", keys built the same way on both sides.
std::string hostProgram(const std::vector<TypeLayout>& types, bool nvcc, bool vectorTypes) {
  std::string p = "#include <cstddef>\n#include <cstdio>\n#include <cstring>\n#include <new>\n";
  if (vectorTypes) p += "#define LAYOUTS_WITH_VECTOR_TYPES\n#include <vector_types.h>\n";
  p += "#include \"layouts.h\"\n";
  p += "static void bits(const char* key, const unsigned char* b, size_t n) {\n"
       "  size_t first = 0, count = 0; bool seen = false;\n"
       "  for (size_t i = 0; i < n * 8; ++i) if (b[i / 8] >> (i % 8) & 1) { if (!seen) first = i; seen = true; "
       "++count; }\n"
       "  std::printf(\"%s %zu/%zu\\n\", key, first, count);\n}\n";
  p += "int main() {\n";
  int n = 0;
  for (const TypeLayout& t : types) {
    if (!isAggregate(t) || t.name.find('(') != std::string::npos) continue;
    std::string T = hostName(t.name, nvcc);
    std::string alias = "T" + std::to_string(n++);
    p += "  { using " + alias + " = " + T + ";\n";
    p += "    std::printf(\"" + t.name + " size %zu\\n\", sizeof(" + alias + "));\n";
    for (const auto& m : t.members) {
      std::string key = t.name + "." + (m.isBase ? "<" + m.type + ">" : m.name);
      if (m.isBase) {
        std::string base = hostName(m.type, nvcc);
        p += "    { alignas(" + alias + ") static unsigned char buf[sizeof(" + alias + ")]; " + alias +
             "* o = reinterpret_cast<" + alias + "*>(buf);\n      std::printf(\"" + key +
             " %zu/%zu\\n\", size_t(reinterpret_cast<unsigned char*>(static_cast<" + base + "*>(o)) - buf), sizeof(" +
             base + ")); }\n";
      } else if (m.name.empty()) {
        continue;
      } else if (m.bitSize) {
        p += "    { " + alias + " o; std::memset(static_cast<void*>(&o), 0, sizeof o); o." + m.name + " = -1; bits(\"" +
             key + "\", reinterpret_cast<unsigned char*>(&o), sizeof o); }\n";
      } else {
        p += "    std::printf(\"" + key + " %zu/%zu\\n\", offsetof(" + alias + ", " + m.name + "), sizeof(((" + alias +
             "*)nullptr)->" + m.name + "));\n";
      }
    }
    p += "  }\n";
  }
  p += "  return 0;\n}\n";
  return p;
}

// The same lines from our layouts.
std::map<std::string, std::string> ourFigures(const std::vector<TypeLayout>& types) {
  std::map<std::string, std::string> out;
  for (const TypeLayout& t : types) {
    if (!isAggregate(t) || t.name.find('(') != std::string::npos) continue;
    out[t.name + " size"] = std::to_string(t.size);
    for (const auto& m : t.members) {
      if (!m.isBase && m.name.empty()) continue;
      std::string key = t.name + "." + (m.isBase ? "<" + m.type + ">" : m.name);
      out[key] = m.bitSize ? std::to_string(m.beginBit()) + "/" + std::to_string(*m.bitSize)
                           : std::to_string(m.offset) + "/" + std::to_string(m.size);
    }
  }
  return out;
}

std::map<std::string, std::string> parseFigures(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t sp = line.rfind(' ');
    if (sp != std::string::npos) out[line.substr(0, sp)] = line.substr(sp + 1);
  }
  return out;
}

struct Compiler {
  std::string name;               // "nvcc" or "clang"
  std::vector<std::string> argv;  // without the output
};

class TypesAgainstHost : public testing::TestWithParam<std::string> {};

TEST_P(TypesAgainstHost, EveryMemberOffsetAndSizeAgrees) {
  const bool nvcc = GetParam() == "nvcc";
  std::optional<std::string> device = findTool(nvcc ? "nvcc" : "clang");
  std::optional<std::string> host = findTool("g++");
  if (!device) PTXDWARF_MISSING_TOOL((nvcc ? "nvcc" : "clang") << " not found");
  if (!host) PTXDWARF_MISSING_TOOL("g++ not found");
  std::string src = fixturesDir() + "/types/layouts.cu";
  std::string dir = workDir() + "/types_host";
  std::filesystem::create_directories(dir);
  std::string ptx = dir + "/layouts_" + GetParam() + ".ptx";
  std::vector<std::string> compile =
      nvcc ? std::vector<std::string>{*device, "-G", "-ptx", "-arch=sm_90", src, "-o", ptx}
           : std::vector<std::string>{*device,      "-x",         "cuda", "--cuda-device-only",
                                      "-S",         "-g",         "-O0",  "--cuda-gpu-arch=sm_80",
                                      "-nocudainc", "-nocudalib", src,    "-o",
                                      ptx};
  CommandResult c = runCommand(compile);
  ASSERT_TRUE(c.ok()) << formatCommand(compile) << ": " << c.summary();

  std::string text = *readFile(ptx);
  ptxdwarf::ptx::ReadResult r = ptxdwarf::ptx::read(text, ptx);
  ASSERT_TRUE(r.ok());
  ptxdwarf::read::Dwarf dwarf = ptxdwarf::read::decode(r.module.sections);
  std::vector<TypeLayout> types = ptxdwarf::view::typeLayouts(dwarf);

  // Every declaration of the header was described (names as each producer spells them).
  std::set<std::string> names;
  for (const TypeLayout& t : types) names.insert(t.name);
  std::vector<std::string> expected = {"Padded",    "Particle",          "Cloud", "Bits",  "Base",  "Derived",
                                       "Aligned16", "WithAlignedMember", "Flags", "Mixed", "Outer", "Klass"};
  if (nvcc) {
    for (const char* n :
         {"Vec3", "Box", "Inner", "Array<double,3>", "Pair<int,float>", "Pair<char,double>", "Array<short,3>",
          "Vectors", "float4", "int2", "char3", "double2", "short4", "float3", "longlong2", "uchar2"})
      expected.push_back(n);
  } else {
    for (const char* n : {"geo::Vec3", "geo::inner::Box", "Outer::Inner", "Array<double, 3>", "Pair<int, float>",
                          "Pair<char, double>", "Array<short, 3>"})
      expected.push_back(n);
  }
  for (const std::string& n : expected) EXPECT_TRUE(names.count(n)) << "no type " << n;
  // `class Klass`: clang writes DW_TAG_class_type, nvcc DW_TAG_structure_type.
  for (const TypeLayout& t : types)
    if (t.name == "Klass") {
      EXPECT_EQ(t.kind, nvcc ? TypeKind::structure : TypeKind::class_);
    }

  std::string program = hostProgram(types, nvcc, nvcc);
  std::string programPath = dir + "/host_" + GetParam() + ".cpp", exe = dir + "/host_" + GetParam();
  ASSERT_TRUE(writeFile(programPath, program));
  std::vector<std::string> build = {
      *host, "-std=c++17", "-Wno-invalid-offsetof", "-I", fixturesDir() + "/types", "-I", kCudaInclude, programPath,
      "-o",  exe};
  CommandResult b = runCommand(build);
  ASSERT_TRUE(b.ok()) << formatCommand(build) << ": " << b.summary() << "\n" << program;
  CommandResult run = runCommand({exe});
  ASSERT_TRUE(run.ok()) << run.summary();

  std::map<std::string, std::string> theirs = parseFigures(run.out), ours = ourFigures(types);
  ASSERT_EQ(ours.size(), theirs.size());
  int members = 0, sizes = 0, bitFields = 0;
  for (const auto& [key, value] : ours) {
    auto it = theirs.find(key);
    ASSERT_NE(it, theirs.end()) << key;
    EXPECT_EQ(value, it->second) << key << " (ours offset/size or first bit/width, host the same)";
    if (key.ends_with(" size"))
      ++sizes;
    else
      ++members;
  }
  for (const TypeLayout& t : types)
    for (const auto& m : t.members) bitFields += m.bitSize.has_value();
  EXPECT_GE(bitFields, 7);  // Flags: every one of its bit fields
  std::printf("types vs %s/g++: %d type sizes and %d member figures (%d bit fields) agree\n", GetParam().c_str(), sizes,
              members, bitFields);
}

INSTANTIATE_TEST_SUITE_P(Producers, TypesAgainstHost, testing::Values("nvcc", "clang"));

}  // namespace
