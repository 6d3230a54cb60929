// Writes fuzz seeds: every PTX file given is copied as a text seed, and its
// debug sections packed in fuzz_input.h's layout as a section seed.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "ptxdwarf/ptx/module.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: seed_tool TEXT_DIR SECTION_DIR FILE...\n";
    return 2;
  }
  fs::create_directories(argv[1]);
  fs::create_directories(argv[2]);
  int n = 0;
  for (int i = 3; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    std::string base = std::to_string(n++) + "_" + fs::path(argv[i]).filename().string();
    std::ofstream(fs::path(argv[1]) / base, std::ios::binary) << text;
    ptxdwarf::ptx::ReadResult r = ptxdwarf::ptx::read(text, argv[i]);
    const char* names[] = {".debug_abbrev", ".debug_info", ".debug_loc", ".debug_pubnames", ".debug_aranges"};
    std::string packed, body;
    for (const char* name : names) {
      const ptxdwarf::SectionImage* s = r.module.section(name);
      size_t len = s ? std::min<size_t>(s->bytes.size(), 0xffff) : 0;
      packed += static_cast<char>(len & 0xff);
      packed += static_cast<char>(len >> 8);
      if (s) body.append(reinterpret_cast<const char*>(s->bytes.data()), len);
    }
    if (const ptxdwarf::SectionImage* str = r.module.section(".debug_str"))
      body.append(reinterpret_cast<const char*>(str->bytes.data()), str->bytes.size());
    std::ofstream(fs::path(argv[2]) / (base + ".bin"), std::ios::binary) << packed << body;
  }
  return 0;
}
