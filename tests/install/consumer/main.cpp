// Uses the installed headers and library: builds the Chapter 6 unit with the
// C++ builder and prints the size of its encoded .debug_info (266 bytes),
// assembles a module with a line table (write::Program); the C API header is
// usable from C++ too. Built with -Wall -Wextra -Wpedantic -Werror
// (CMakeLists.txt): the public structs take designated initializers that name
// only some fields, as the README writes them, without a warning.
#include <ptxdwarf/dwarf.h>
#include <ptxdwarf/ptxdwarf.h>
#include <ptxdwarf/write/builder.h>
#include <ptxdwarf/check/assembled.h>
#include <ptxdwarf/check/check.h>
#include <ptxdwarf/write/encode.h>
#include <ptxdwarf/write/program.h>
#include <ptxdwarf/write/ptx_writer.h>

#include <cstdio>
#include <string>

using namespace ptxdwarf;
using namespace ptxdwarf::write;

int main() {
  Builder b;
  b.compileUnit({.producer = "lgenfe: EDG 4.9",
                 .language = dw::DW_LANG_C_plus_plus,
                 .name = "call1.cu",
                 .compDir = "/home/mmurphy/test"});
  DieId intType = b.baseType("int", dw::DW_ATE_signed, 4, kDetached);
  DieId voidType = b.unspecifiedType("void", kDetached);
  DieId intPtr = b.pointerType(intType, cuda::ADDR_generic_space, kDetached);
  DieId foo = b.subprogram({.name = "_Z3fooii",
                            .linkageName = "_Z3fooii",
                            .declFile = 1,
                            .declLine = 1,
                            .type = intType,
                            .lowPc = SymbolRef{"func_begin0"},
                            .highPc = SymbolRef{"func_end0"}});
  b.formalParameter(foo,
                    {.name = "i", .declFile = 1, .declLine = 1, .type = intType, .location = Location::reg("%r1")});
  b.formalParameter(foo,
                    {.name = "j", .declFile = 1, .declLine = 1, .type = intType, .location = Location::reg("%r2")});
  b.unit().attach(b.root(), intType);
  DieId test = b.subprogram({.name = "_Z4testPi",
                             .linkageName = "_Z4testPi",
                             .declFile = 1,
                             .declLine = 6,
                             .type = voidType,
                             .lowPc = SymbolRef{"func_begin1"},
                             .highPc = SymbolRef{"func_end1"}});
  b.formalParameter(test, {.name = "p",
                           .declFile = 1,
                           .declLine = 6,
                           .type = intPtr,
                           .location = Location::symbol({"_Z4testPi_param_0"}, ptx::StateSpace::param)});
  b.unit().attach(b.root(), voidType);
  b.unit().attach(b.root(), intPtr);

  // Designated initializers that name a few fields, on a second unit.
  Builder compact({.version = 3, .policy = FormPolicy::compact});
  DieId compactInt = compact.baseType("int", dw::DW_ATE_signed, 4);
  DieId pair = compact.aggregate(dw::DW_TAG_structure_type, "Pair", 8);
  compact.member(pair, {.name = "a", .type = compactInt, .offset = 0});
  compact.variable(compact.root(), {.name = "g", .type = compactInt, .external = true});

  Diagnostics diags;
  std::vector<SectionImage> sections =
      encode(b.unit(), {.aranges = false, .pubnamesLength = UnitLengthConvention::totalSize}, diags);
  if (const SectionImage* info = findSection(sections, ".debug_info"))
    std::printf(".debug_info: %zu bytes\n", info->size());
  WriteOptions writeOptions{.style = Style::onePerLine, .version = {.major = 7, .minor = 8, .present = true}};
  std::string text = writeSections(sections, writeOptions, diags);
  check::Options checkOptions{.threads = 2};
  (void)checkOptions;
  if (diags.hasErrors()) {
    std::fprintf(stderr, "%s\n", diags.items[0].message.c_str());
    return 1;
  }
  Program program;
  unsigned file = program.files().add("/src/k.cu");
  program.code() += ".visible .entry k()\n{\n";
  program.beginFunction();
  program.loc({file, 2, 1});
  program.code() += "\tret;\n";
  program.endFunction();
  program.code() += "}\n";
  Assembled m = check::assembleAndCheck(program, nullptr);  // a line table alone
  bool lined =
      m.ptx.find(".file\t1 \"/src/k.cu\"") != std::string::npos && m.ptx.find(".loc\t1 2 1") != std::string::npos;
  std::printf("assembled: %s\n", m.written() && lined && !m.diagnostics.hasErrors() ? "ok" : "failed");
  std::printf("C API: %s\n", ptxdwarf_status_name(PTXDWARF_OK));
  return 0;
}
